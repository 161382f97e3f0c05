// uncalled generic function: dot of generic tiles
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
fn f(a: tile<f32>[M, K], b: tile<f32>[K, N]) -> tile<f32>[M, N] {
  return dot(a, b)
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
