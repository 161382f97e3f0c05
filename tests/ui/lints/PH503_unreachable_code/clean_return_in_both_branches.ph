// PH503 stays quiet: a return in each branch of an if, nothing after it in those blocks
fn sign(x: f32) -> f32 {
  if x < 0.0 {
    return -1.0
  } else {
    return 1.0
  }
}

@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  O[ctx.thread] = sign(A[ctx.thread])
}
