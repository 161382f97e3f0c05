// LANGUAGE §2: a function is inlined at every call, so its body runs under the caller's control;
// a copy inside it, called from a per-thread branch, is rejected at the copy (chain: inlined from).
// pins: everyone.rule-control control.enclosing
fn copy_row(S: tensor<f32>[R, C], D: tensor<f32>[R, C], r: i32) {
  D[r :+ 1, 0 :+ 32] = S[r :+ 1, 0 :+ 32]       //~ error PH301
}

@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  if ctx.lane == 0 {
    copy_row(A, O, 1)
  }
  copy_row(A, O, 2)
}
