// uncalled generic function: broadcast and rowmax
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
fn f(a: tile<f32>[M, K], b: tile<f32>[M, 1]) -> f32 {
  var c = a + b
  c = c * 2.0
  let r = rowmax(c)
  return r[0, 0]
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
