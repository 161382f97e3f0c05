// A function's scalar parameter takes the kind of its argument at each call (facts: let_init), so a
// slice at the parameter is rejected only where the argument is per-thread.
// pins: L9.2a everyone.rule-operands
fn copy_at(S: tensor<f32>[R, C], D: tensor<f32>[R, C], off: i32) {
  D[0 :+ 1, off :+ 8] = S[0 :+ 1, 0 :+ 8]     //~ error PH302 "`off`"
}

@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64], n: i32) {
  copy_at(A, O, n)
  copy_at(A, O, ctx.lane)
}
