// First stage of summing a long f32 vector: CTA b adds up its chunk of 4 * ctx.threads elements
// of X, accumulating in f64, and writes the result to partials[b]; a second pass adds up the
// partials. Each thread sums four elements, ctx.threads apart so that a warp's loads are
// contiguous, and the CTA collective `sum<over ctx.thread>` combines the threads' sums.
@launch(256)
kernel block_reduce(X: tensor<f32>[N], partials: tensor<f64>[G]) {
  let base = ctx.block.x * ctx.threads * 4
  var acc: f64 = 0.0
  for<unroll 4> j in range(0, 4) {
    let i = base + j * ctx.threads + ctx.thread
    if i < N {
      acc += f64(X[i])
    }
  }
  let total = sum<over ctx.thread>(acc)
  if ctx.thread == 0 && ctx.block.x < G {
    partials[ctx.block.x] = total
  }
}
