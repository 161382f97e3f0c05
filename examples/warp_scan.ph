// Inclusive prefix sums within each warp: Y[i] = X[w0] + ... + X[i], where w0 is the first
// index handled by i's warp, and warp_totals[w] = the sum of warp w's 32 elements (the first
// pass of a larger scan). At distances d = 1, 2, 4, 8, 16 every lane reads the running value of
// the lane d below it with `shfl<up d>` and adds it; lanes below d have no such neighbour and
// keep their value. The shuffle runs in every lane and `where` chooses afterwards, because a
// shuffle needs the whole warp. Lane 31 ends with the warp's total, which `shfl<idx 31>` hands
// to lane 0 to store.
@launch(256)
kernel warp_scan(X: tensor<f32>[N], Y: tensor<f32>[N], warp_totals: tensor<f32>[W]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  var v: f32 = 0.0
  if i < N {
    v = X[i]
  }
  var d = 1
  while d < ctx.lanes {
    let below = shfl<up d>(v)
    v = where(ctx.lane >= d, v + below, v)
    d <<= 1
  }
  if i < N {
    Y[i] = v
  }
  let warp_total = shfl<idx 31>(v)
  let w = ctx.block.x * ctx.warps + ctx.warp
  if ctx.lane == 0 && w < W {
    warp_totals[w] = warp_total
  }
}
