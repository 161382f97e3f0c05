// "A break ... under varying control makes the rest of its loop ... varying too" in a while loop as
// in a for loop; the statements before the break are raised as well.
// pins: control.early-exit L9.3a
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128], n: i32) {
  var i = 0
  while i < n {
    barrier()                           //~ error PH301
    if A[0, ctx.thread] > f32(i) {
      break
    }
    i += 1
  }
}
