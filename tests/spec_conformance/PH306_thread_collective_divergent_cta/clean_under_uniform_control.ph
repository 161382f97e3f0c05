// CTA collectives under uniform if, while and for: conditions and bounds from parameters, ctx.block
// and an earlier CTA collective.
// pins: lane.cta-collective control.enclosing
@launch(256)
kernel k(A: tensor<f32>[8, 256], O: tensor<f32>[1, 8], n: i32) {
  var total = 0.0
  for r in range(0, n) {
    total += sum<over ctx.thread>(A[r % 8, ctx.thread])
  }
  if ctx.block.x == 0 {
    total = max<over ctx.thread>(total)
  }
  while total > 1.0 {
    total = sum<over ctx.thread>(A[0, ctx.thread]) * 0.5 + total * 0.25
  }
  O[0, ctx.block.x % 8] = total
}
