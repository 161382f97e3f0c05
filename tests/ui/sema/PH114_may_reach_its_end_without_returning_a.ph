// PH114 (misplaced-jump)
fn f(x: i32) -> i32 {
  if x > 0 {
    return 1
  }
}    //~ error PH114 "may reach its end without returning a value"
kernel k() {
  let a = f(1)
}
