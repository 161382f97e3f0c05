// PH003 (unexpected-character)
kernel k() {
  let a = 1$    //~ error PH003 "unexpected character '$'"
}
