// "Lane-level operations": uniform control is needed, so a CTA collective under a lane condition is
// rejected (the rule's docstring example, under ctx.lane).
// pins: lane.cta-collective
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 1]) {
  if ctx.lane == 0 {
    let s = sum<over ctx.thread>(A[0, ctx.thread])   //~ error PH306
    O[0, 0] = s
  }
}
