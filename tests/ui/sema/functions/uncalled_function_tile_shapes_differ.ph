// uncalled function: tile shapes differ
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
fn f(a: tile<f32>[4, 8], b: tile<f32>[8, 4]) -> f32 {
  var c = a + b    //~ error PH106
  return 0.0
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
