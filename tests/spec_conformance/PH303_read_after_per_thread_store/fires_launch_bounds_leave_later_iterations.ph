// LANGUAGE §9.6: under `@launch(256)` the loop `range(0, ctx.warps)` runs w = 0 .. 7: the store at
// `w == 3` is followed by the read of w = 4, with no barrier between.
// pins: L9.6-constants L9.6-loops L9.6b
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for w in range(0, ctx.warps) {
    O[w :+ 1, 0 :+ 32] = t         //~ error PH303
    if w == 3 {
      t[0, ctx.lane] = 1.0
    }
  }
}
