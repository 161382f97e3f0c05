// LANGUAGE §9.6: the carried path is dropped only when z3 proves no iterations i < i' have the
// store's guard at i and the read's at i'. A store at r == 0 and a read at every later r: it stays.
// pins: L9.6b ex.loops everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 8) {
    O[r :+ 1, 0 :+ 32] = t      //~ error PH303
    if r == 0 {
      t[0, ctx.lane] = 1.0
    }
  }
}
