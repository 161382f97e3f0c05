// PH109 (bad-call)
fn f(x: i32) -> i32 {
  return x
}
kernel k() {
  let a = f(1, 2)    //~ error PH109 "`f` takes 1 argument, not 2"
}
