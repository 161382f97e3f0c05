// LANGUAGE §9.6: the constants z3 is told include `ctx.threads` (the `@launch` count), `ctx.warps`
// (that count / 32) and `ctx.lanes` (32): under `@launch(128)` the barriers below always run.
// pins: L9.6-constants L9.6b
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[2, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  if ctx.threads == 128 && ctx.warps == 4 {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t
  t[0, ctx.lane] = 2.0
  if ctx.lanes * ctx.warps < 100 {
    return
  }
  barrier()
  O[1 :+ 1, 0 :+ 32] = t
}
