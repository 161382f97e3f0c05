// LANGUAGE §9.3: a break under warp-uniform control raises every statement of its loop to
// warp-uniform: a CTA collective in the loop is then rejected (a lane collective would be fine).
// pins: lane.cta-collective L9.3a control.early-exit
@launch(256)
kernel k(A: tensor<f32>[8, 256], O: tensor<f32>[1, 8]) {
  for r in range(0, 8) {
    let s = sum<over ctx.thread>(A[r, ctx.thread])   //~ error PH306
    let w = sum<over ctx.lane>(A[r, ctx.thread])
    O[0, r] = s + w
    if ctx.warp == r {
      break
    }
  }
}
