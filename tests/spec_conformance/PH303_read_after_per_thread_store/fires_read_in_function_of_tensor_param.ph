// LANGUAGE §9.5 through an inlined function: the caller stores per thread into O, then a function
// copies out of its tensor parameter bound to O: a CTA-wide read of O with no barrier between.
// pins: L9.5 everyone.rule-barrier
fn copy_out(S: tensor<f32>[R, C], D: tensor<f32>[R, C]) {
  D[0 :+ 1, 0 :+ 32] = S[0 :+ 1, 0 :+ 32]      //~ error PH303
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  O[0, ctx.lane] = 1.0
  copy_out(O, A)
}
