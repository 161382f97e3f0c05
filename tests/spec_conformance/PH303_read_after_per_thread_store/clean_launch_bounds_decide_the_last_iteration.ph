// LANGUAGE §9.6: the loop's bounds with the launch's constants: under `@launch(128)` the loop
// `range(0, ctx.warps)` runs w = 0 .. 3, so the store at `w == 3` is in its last iteration and no
// later read follows it; the one at `w == ctx.warps - 2` is followed by the read of w = 3.
// pins: L9.6-constants L9.6-loops L9.6b ex.loops
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for w in range(0, ctx.warps) {
    O[w :+ 1, 0 :+ 32] = t
    if w == 3 {
      t[0, ctx.lane] = 1.0
    }
  }
  barrier()
  for w in range(0, ctx.threads / 32) {
    O[w :+ 1, 0 :+ 32] = t
    if w * 32 == ctx.threads - 32 {
      t[0, ctx.lane] = 2.0
    }
  }
}
