// Matrix-vector product y = W A^T with one warp per row of W: lanes take every 32nd column of
// the row, each keeping its own partial sum, and a lane collective adds the partial sums up. The
// lane-strided loop of per-thread-values.md written out as a whole kernel (LANGUAGE §11).
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
