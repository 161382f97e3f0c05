// PH501 stays quiet: bindings read only by a condition, an index or a return
fn pick(A: tensor<f32>[N], i: i32) -> f32 {
  return A[i]
}

@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  let limit = 32
  let j = ctx.thread
  if j < limit {
    O[j] = pick(A, j)
  }
}
