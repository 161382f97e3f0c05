// LANGUAGE §8, per-thread: "scalar arithmetic, comparisons, conversions, where; scalar math exp log sqrt
// tanh round abs min max pow popcount on scalars and runs" under per-thread control.
// pins: L8.per-thread anywhere.ops
@launch(128)
kernel k(A: tensor<f32>[1, 1024], O: tensor<f32>[1, 1024]) {
  if ctx.thread % 7 == 2 {
    let x = A[0, ctx.thread]
    let y = exp(x) + log(abs(x) + 1.0) + sqrt(abs(x)) + tanh(x) + round(x) + pow(x, 2.0)
    let z = min(y, 4.0) + f32(popcount(ctx.thread)) + f32(i64(ctx.lane))
    let r = exp(elem(A[0, ctx.thread * 4 :+ 4])) + max(elem(A[0, 4 :+ 4]), 0.0)
    store(O[0, ctx.thread * 4 :+ 4], where(r > 1.0, r, z))
  }
}
