// uncalled function: rowsum of integers
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
fn f(t: tile<i32>[1, L]) -> i32 {
  let z = rowsum(t)    //~ error PH105
  return 0
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
