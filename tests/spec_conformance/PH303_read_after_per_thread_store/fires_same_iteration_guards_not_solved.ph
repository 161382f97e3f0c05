// LANGUAGE §9.6: only paths that cross a back edge go to z3. Within one iteration the CFG path from
// the store to the read is a violation even though `r >= 2` and `r < 2` never hold together.
// pins: L9.6a L9.6b everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 8) {
    if r >= 2 {
      t[0, ctx.lane] = 2.0
    }
    if r < 2 {
      O[r :+ 1, 0 :+ 32] = t    //~ error PH303
    }
  }
}
