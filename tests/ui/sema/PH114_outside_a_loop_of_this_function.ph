// PH114 (misplaced-jump)
fn f() {
  break    //~ error PH114 "outside a loop of this function"
}
kernel k() {
  for i in range(0, 4) {
    f()
  }
}
