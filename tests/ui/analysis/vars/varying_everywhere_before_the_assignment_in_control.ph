// LANGUAGE §9.1: varying everywhere before the assignment in control
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var x = 0
  if x == 0 {
    barrier()       //~ error PH301
  }
  x = ctx.lane
}
