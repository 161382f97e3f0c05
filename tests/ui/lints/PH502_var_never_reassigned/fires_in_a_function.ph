// PH502: in a function body too (once, however many calls inline it)
fn twice(x: f32) -> f32 {
  var y = x * 2.0                           //~ warning PH502
  return y
}

@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  O[ctx.thread] = twice(A[ctx.thread]) + twice(1.0)
}
