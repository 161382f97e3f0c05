// LANGUAGE §8: per-thread operations take "any" operands; only CTA-wide operations need uniform ones.
// Point loads and stores, scalar math and `where` with per-thread operands.
// pins: anywhere.ops L8.per-thread
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  let x = A[0, ctx.thread]
  let y = where(x > 0.0, sqrt(x), exp(x)) + max(x, 1.0) + abs(x) + pow(x, 2.0)
  O[0, (ctx.thread + 1) % 128] = y + f32(popcount(ctx.lane))
}
