// Symmetric per-row int8 quantization: for each row r of X, scale[r] = max_c |X[r, c]| / 127
// and Q[r, c] = round(X[r, c] / scale[r]), clamped to [-127, 127]. One CTA per row. Threads
// take runs of 4 columns; the CTA collective `max<over ctx.thread>` gives the row's absolute
// maximum; then each thread quantizes its own runs and stores them with `store`, the rounding,
// clamping and conversion to i8 all applied to the run elementwise.
@launch(256)
@aligned(N = 4)
kernel quantize_rows(X: tensor<f32>[M, N], Q: tensor<i8>[M, N], scale: tensor<f32>[M]) {
  let row = ctx.block.x
  var amax: f32 = 0.0
  for c in range(ctx.thread * 4, N, ctx.threads * 4) {
    let a = elem(abs(X[row, c :+ 4]))
    amax = max(amax, max(max(a[0], a[1]), max(a[2], a[3])))
  }
  let row_amax = max<over ctx.thread>(amax)
  let s = max(row_amax, 1.0e-12) / 127.0
  let inv_s = 1.0 / s
  for c in range(ctx.thread * 4, N, ctx.threads * 4) {
    store(Q[row, c :+ 4], i8(min(max(round(X[row, c :+ 4] * inv_s), -127.0), 127.0)))
  }
  if ctx.thread == 0 {
    scale[row] = s
  }
}
