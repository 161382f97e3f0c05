// kinds carried through a while loop
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var n = 0    //~ kind n varying
  var s = 0    //~ kind s varying
  while n < 4 {
    s = n
    n = n + ctx.lane
  }
}
