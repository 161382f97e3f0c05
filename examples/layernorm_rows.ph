// Layer normalization of each row of a bf16 matrix, with statistics in f32:
// Y[r, c] = (X[r, c] - mean_r) / sqrt(var_r + eps) * gamma[c] + beta[c]. One warp per row; each
// lane handles 8 consecutive elements at a time as a run (16-byte loads and stores), and warp
// sums use an xor butterfly of shuffles written once as a function. Rows past the end return
// early; that exit is warp-uniform, so the shuffles after it still see whole warps.

// The sum of v over the 32 lanes of the warp, left in every lane.
fn warp_sum(v: f32) -> f32 {
  var s = v
  for<unroll 5> step in range(0, 5) {
    s += shfl<xor (16 >> step)>(s)
  }
  return s
}

// This lane's share of the sum over row `row` of (x - center)^2: runs of 8 columns, the warp
// covering 256 columns per step. C is bound from the shape of the tensor passed in.
fn lane_sq_dev(X: tensor<bf16>[R, C], row: i32, center: f32) -> f32 {
  var acc: f32 = 0.0
  for c in range(ctx.lane * 8, C, ctx.lanes * 8) {
    let d = elem(f32(X[row, c :+ 8])) - center
    acc += sum(d * d)
  }
  return acc
}

@launch(256, 2, 128)
@aligned(N = 256)
kernel layernorm_rows(X: tensor<bf16>[M, N], gamma: tensor<bf16>[N], beta: tensor<bf16>[N],
                      Y: tensor<bf16>[M, N], eps: f32) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  if row >= M {
    return
  }
  var part: f32 = 0.0
  for c in range(ctx.lane * 8, N, ctx.lanes * 8) {
    part += sum(f32(X[row, c :+ 8]))
  }
  let mean = warp_sum(part) / f32(N)
  let variance = warp_sum(lane_sq_dev(X, row, mean)) / f32(N)
  let rstd = 1.0 / sqrt(variance + eps)
  for c in range(ctx.lane * 8, N, ctx.lanes * 8) {
    let xhat = (elem(f32(X[row, c :+ 8])) - mean) * rstd
    store(Y[row, c :+ 8], bf16(xhat * f32(gamma[c :+ 8]) + f32(beta[c :+ 8])))
  }
}
