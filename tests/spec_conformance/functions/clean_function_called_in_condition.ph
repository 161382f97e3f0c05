// An inlined call in a condition runs before the branch, under the control around the `if`; its
// CTA collective there is at uniform control.
// pins: lane.cta-collective control.enclosing
fn total(A: tensor<f32>[R, C]) -> f32 {
  return sum<over ctx.thread>(A[0, ctx.thread])
}

@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  if total(A) > 0.0 {
    O[0 :+ 1, 0 :+ 256] = A[0 :+ 1, 0 :+ 256]
  }
}
