// The sum of each row of A, one warp per row: out[r] = A[r, 0] + ... + A[r, N - 1]. From
// LANGUAGE §11, unchanged.

// One warp per row, lanes stride the row: a warp-uniform row, a varying partial sum,
// a warp-uniform total.
@launch(256)
kernel row_sums(A: tensor<f32>[M, N], out: tensor<f32>[M]) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  if row < M {
    var acc: f32 = 0.0
    for c in range(ctx.lane, N, ctx.lanes) {
      acc += A[row, c]
    }
    let total = sum<over ctx.lane>(acc)
    if ctx.lane == 0 {
      out[row] = total
    }
  }
}
