// Sparse matrix-vector product y = A x with A in CSR form: the nonzeros of row r are
// vals[row_ptr[r] .. row_ptr[r + 1] - 1], in columns cols[..] (M1 = M + 1). One warp per row.
// The warp starts at the row's first nonzero rounded down to a multiple of 32, so that each
// step's loads of cols and vals cover whole aligned 32-element blocks; lanes that fall before
// the row's first nonzero skip the step with `continue`. A shuffle-down tree then folds the
// lanes' partial sums into lane 0, which stores the result.
@launch(128)
kernel csr_spmv(row_ptr: tensor<i32>[M1], cols: tensor<i32>[NNZ], vals: tensor<f32>[NNZ],
                x: tensor<f32>[N], y: tensor<f32>[M]) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  if row < M {
    let start = row_ptr[row]
    let end = row_ptr[row + 1]
    var acc: f32 = 0.0
    for p in range((start & ~31) + ctx.lane, end, ctx.lanes) {
      if p < start {
        continue
      }
      acc += vals[p] * x[cols[p]]
    }
    var n = ctx.lanes
    while n > 1 {
      acc += shfl<down (n >> 1)>(acc)
      n >>= 1
    }
    if ctx.lane == 0 {
      y[row] = acc
    }
  }
}
