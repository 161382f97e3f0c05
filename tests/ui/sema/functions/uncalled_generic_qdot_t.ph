// uncalled generic function: qdot t
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
fn f(a: tile<i8>[M, K], sa: tile<f32>[M, S], w: tile<i8>[N, K], sw: tile<f32>[N, S]) -> f32 {
  let c = qdot_t(a, sa, w, sw)
  return c[0, 0]
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
