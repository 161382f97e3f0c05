// PH503: after a function's return
fn f(x: f32) -> f32 {
  return x
  return x + 1.0                            //~ warning PH503
}

@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  O[ctx.thread] = f(A[ctx.thread])
}
