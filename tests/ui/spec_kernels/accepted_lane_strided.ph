// per-thread-values.md, "The three kinds": the lane-strided loop, written out as a whole kernel
// in LANGUAGE §11. col is warp-uniform, k and acc varying, total warp-uniform.
// Expected: no errors.
@launch(128)
kernel lane_strided(W: tensor<f32>[N, K], A: tensor<f32>[1, K], y: tensor<f32>[1, N]) {
  let col = ctx.block.x * ctx.warps + ctx.warp
  var acc: f32 = 0.0
  for k in range(ctx.lane, K, ctx.lanes) {
    acc += W[col, k] * A[0, k]
  }
  let total = sum<over ctx.lane>(acc)
  if ctx.lane == 0 && col < N {
    y[0, col] = total
  }
}
