// Softmax along each row of a matrix: Y[r, c] = exp(X[r, c] - m_r) / sum_j exp(X[r, j] - m_r),
// where m_r is the row's maximum (subtracting it keeps exp() from overflowing). One warp per
// row; lanes stride across the row, `max<over ctx.lane>` and `sum<over ctx.lane>` combine the
// lanes' partial results, and each lane writes its own elements of the normalized row. The
// collectives sit inside `if row < M`, which is warp-uniform, so whole warps reach them.
@launch(256)
kernel row_softmax(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  if row < M {
    var local_max: f32 = -3.0e38
    for c in range(ctx.lane, N, ctx.lanes) {
      local_max = max(local_max, X[row, c])
    }
    let row_max = max<over ctx.lane>(local_max)
    var local_sum: f32 = 0.0
    for c in range(ctx.lane, N, ctx.lanes) {
      local_sum += exp(X[row, c] - row_max)
    }
    let inv_sum = 1.0 / sum<over ctx.lane>(local_sum)
    for c in range(ctx.lane, N, ctx.lanes) {
      Y[row, c] = exp(X[row, c] - row_max) * inv_sum
    }
  }
}
