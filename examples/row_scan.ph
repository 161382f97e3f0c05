// Inclusive prefix sums along each row of a matrix: Y[r, c] = X[r, 0] + ... + X[r, c]. One CTA
// per row, walking it in segments of ctx.threads elements (one per thread). In a segment each
// warp scans its 32 values with `shfl<up d>`; the last lane of each warp stores the warp's total
// into a shared tile; after a `barrier()` (those stores are per-thread, the read is CTA-wide) a
// `cumsum` of the tile gives each warp the total of the warps before it; and a uniform carry adds
// the totals of the earlier segments. The totals tile has a row for each of up to 32 warps; rows
// of warps that do not exist stay 0.
@autotune(THREADS in [256, 512])
@launch(THREADS)
kernel row_scan(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let row = ctx.block.x
  var warp_totals: tile<f32>[32, 1] = 0.0
  var carry: f32 = 0.0
  for seg in range(0, N, ctx.threads) {
    let c = seg + ctx.thread
    var v: f32 = 0.0
    if c < N {
      v = X[row, c]
    }
    for<unroll 5> step in range(0, 5) {
      let d = 1 << step
      let below = shfl<up d>(v)
      if ctx.lane >= d {
        v += below
      }
    }
    if ctx.lane == ctx.lanes - 1 {
      warp_totals[ctx.warp, 0] = v
    }
    barrier()
    let through = cumsum(warp_totals)
    var before = carry
    if ctx.warp > 0 {
      before += through[ctx.warp - 1, 0]
    }
    if c < N {
      Y[row, c] = v + before
    }
    carry += through[ctx.warps - 1, 0]
  }
}
