// PH113 (recursive-function)
fn f(x: i32) -> i32 {
  return f(x)    //~ error PH113 "`f` calls itself (through f -> f)"
}
kernel k() {
  let a = f(1)
}
