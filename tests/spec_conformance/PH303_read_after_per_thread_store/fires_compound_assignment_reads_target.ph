// LANGUAGE §9.5: a sweep reads "the target too, for a compound assignment such as O[..] += t".
// pins: L9.5 everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  O[0, ctx.lane] = 0.0
  O[0 :+ 1, 0 :+ 32] += t      //~ error PH303 "reads `O`"
}
