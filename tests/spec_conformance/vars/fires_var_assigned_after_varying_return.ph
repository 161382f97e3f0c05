// LANGUAGE §9.1 with §9.3: an assignment after a varying return runs under varying control, so the
// var is varying (in the threads still running it may hold the new value, in the others not).
// pins: L9.1 L9.3c kinds.var
@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64], n: i32) {
  var off = 0                                      //~ kind off varying
  if ctx.thread >= n {
    return
  }
  off = 8
  O[0 :+ 1, 0 :+ 8] = A[0 :+ 1, off :+ 8]          //~ error PH301 PH302
}
