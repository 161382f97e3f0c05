// LANGUAGE §9.6: "integer arithmetic is exact in the type's width (wrapping)". `big + 1` wraps to the
// smallest i32, so `big + 1 > 0` never holds, the barrier never runs, and the read follows the store
// unordered; in `i64` the same test holds and the barrier always runs.
// pins: L9.6-constants L9.6b L9.6a
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[2, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  let big = 2147483647
  t[0, ctx.lane] = 1.0
  if big + 1 > 0 {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
  t[0, ctx.lane] = 2.0
  if i64(big) + 1 > 0 {
    barrier()
  }
  O[1 :+ 1, 0 :+ 32] = t
}
