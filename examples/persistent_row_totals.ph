// Row totals of an i32 count matrix on a persistent grid: launch about as many CTAs as the GPU
// holds at once and let each take rows from a global queue until none are left. A CTA takes the
// next row index with `atomic_add` on a counter, sums the row with a CTA collective, writes
// totals[row], and folds the total into the largest and smallest row totals so far with
// `atomic_max` and `atomic_min`. Start with next_row = [0] and extremes = [-2147483648,
// 2147483647]. The queue index is uniform (an atomic's result), so the loop, its `break` and the
// once-per-CTA operations all run under uniform control.
@launch(512)
kernel persistent_row_totals(X: tensor<i32>[M, N], totals: tensor<i32>[M],
                             next_row: tensor<i32>[1], extremes: tensor<i32>[2]) {
  while true {
    let row = atomic_add(next_row[0], 1)
    if row >= M {
      break
    }
    var acc = 0
    for c in range(ctx.thread, N, ctx.threads) {
      acc += X[row, c]
    }
    let total = sum<over ctx.thread>(acc)
    totals[row] = total
    atomic_max(extremes[0], total)
    atomic_min(extremes[1], total)
  }
}
