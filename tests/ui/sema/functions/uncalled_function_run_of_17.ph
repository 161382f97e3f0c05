// uncalled function: run of 17
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
fn f(A: tensor<f32>[N]) -> f32 {
  return sum(A[0 :+ 17])    //~ error PH111
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
