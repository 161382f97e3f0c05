// LANGUAGE §9.6: with `ctx.warps` a constant (the `@launch` count / 32), `ctx.warps > 8` never holds
// under `@launch(128)`: the barrier never runs, and the read follows the store unordered.
// pins: L9.6-constants L9.6a
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  if ctx.warps > 8 {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
}
