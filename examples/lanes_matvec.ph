// Matrix-vector product y = W x with one warp per row of W. Each lane walks the row in runs of
// four consecutive columns, 128 columns per step for the whole warp, and keeps its own partial
// sum; a lane collective folds the 32 partial sums and lane 0 stores the row's result. The kernel
// at the top of per-thread-values.md, unchanged.
@launch(128)
@aligned(K = 128)
kernel lanes_matvec(W: tensor<f32>[N, K], x: tensor<f32>[1, K], y: tensor<f32>[1, N]) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  var acc: f32 = 0.0
  if row < N {
    for k in range(0, K, ctx.lanes * 4) {
      let at = k + ctx.lane * 4
      acc += sum(W[row, at :+ 4] * x[0, at :+ 4])
    }
  }
  let total = sum<over ctx.lane>(acc)
  if ctx.lane == 0 && row < N {
    y[0, row] = total
  }
}
