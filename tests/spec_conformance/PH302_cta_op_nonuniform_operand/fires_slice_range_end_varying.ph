// LANGUAGE §9.7: the scalar operands of a CTA-wide operation include "slice offsets and ends": a
// `s : e` slice with per-thread ends (of constant length) is rejected on each.
// pins: L9.7a everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  let s = ctx.lane
  O[0 :+ 1, 0 :+ 4] = A[0 :+ 1, s : s + 4]    //~ error PH302 PH302
}
