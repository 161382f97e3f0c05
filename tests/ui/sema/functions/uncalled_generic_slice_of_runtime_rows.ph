// uncalled generic function: slice of runtime rows
// An uncalled function is only type-checked (LANGUAGE §2): its dims are bound at each call, so
// what depends on their values waits for a call; what is wrong for any binding is still reported.
fn f(A: tensor<f32>[M, N], r: i32) -> f32 {
  var t = A[r :+ 4, 0 :+ N]
  let s = rowsum(t)
  return s[0, 0]
}
@launch(32)
kernel k(O: tensor<f32>[4]) {
  O[0] = 1.0
}
