// LANGUAGE §9.6: store and read in different branches never meet in one iteration, but an even
// iteration's store reaches a later odd iteration's read through the back edge; z3 finds i < i'.
// pins: L9.6b ex.loops everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 8) {
    if r % 2 == 0 {
      t[0, ctx.lane] = f32(r)
    } else {
      O[r :+ 1, 0 :+ 32] = t    //~ error PH303
    }
  }
}
