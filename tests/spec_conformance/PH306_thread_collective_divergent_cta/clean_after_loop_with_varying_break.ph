// LANGUAGE §9.3: a varying break raises its loop only; "after the loop, control is as it was before
// the loop", so a CTA collective after the loop is fine.
// pins: lane.cta-collective L9.3a
@launch(256)
kernel k(A: tensor<f32>[8, 256], O: tensor<f32>[1, 256]) {
  var seen = 0.0
  for r in range(0, 8) {
    seen += A[r, ctx.thread]
    if seen > 4.0 {
      break
    }
  }
  let most = max<over ctx.thread>(seen)
  O[0, ctx.thread] = most
}
