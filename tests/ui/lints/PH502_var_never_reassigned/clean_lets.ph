// PH502 stays quiet: lets are lets
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  let x = A[ctx.thread]
  let y: f32 = 2.0
  O[ctx.thread] = x * y
}
