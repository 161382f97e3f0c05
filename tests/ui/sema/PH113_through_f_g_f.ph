// PH113 (recursive-function)
fn f(x: i32) -> i32 {
  return g(x)
}
fn g(x: i32) -> i32 {
  return f(x)    //~ error PH113 "(through f -> g -> f)"
}
kernel k() {
  let a = f(1)
}
