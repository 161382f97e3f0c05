// uncalled generic function: tile sized by a dim
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
// a dim bound at each call may size a tile (a constant wherever the call passes a static extent)
fn f(A: tensor<f32>[N]) -> f32 {
  var t: tile<f32>[N] = A[0 :+ N]
  return t[0]
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
