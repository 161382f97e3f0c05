// uncalled generic function: store of a run
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
fn f(A: tensor<f32>[N], O: tensor<f32>[N]) {
  store(O[0 :+ N], A[0 :+ N] * 2.0)
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
