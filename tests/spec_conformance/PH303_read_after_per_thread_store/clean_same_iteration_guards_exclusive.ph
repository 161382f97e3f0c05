// LANGUAGE §9.6: every barrier-free path goes to z3, within one iteration too. The store runs only
// where `r >= 2` and the read only where `r < 2`: no iteration takes both branches, and no later
// iteration r' > r with r' < 2 follows one with r >= 2, so neither path can be taken.
// pins: L9.6a L9.6b L9.6-conditions everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 8) {
    if r >= 2 {
      t[0, ctx.lane] = 2.0
    }
    if r < 2 {
      O[r :+ 1, 0 :+ 32] = t
    }
  }
}
