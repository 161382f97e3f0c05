// A lane collective's result is warp-uniform, not uniform, so the control under a condition on it is
// warp-uniform: enough for a lane collective, not for a CTA collective.
// pins: lane.cta-collective lane.lane-collective-result
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  let x = A[0, ctx.thread]
  if any<over ctx.lane>(x > 0.0) {
    let t = sum<over ctx.thread>(x)     //~ error PH306
    O[0, ctx.thread] = t
  }
}
