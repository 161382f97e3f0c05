// LANGUAGE §2: a function is inlined, its tensor parameter bound to the argument; LANGUAGE §9.5: the
// store through the parameter is a per-thread store to the caller's tensor, which the copy then reads.
// pins: L9.5 everyone.rule-barrier
fn mark(B: tensor<f32>[R, C]) {
  B[0, ctx.lane] = 1.0
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  mark(O)
  t = O[0 :+ 1, 0 :+ 32]       //~ error PH303
  O[0 :+ 1, 0 :+ 32] = t
}
