// PH109 (bad-call)
kernel k() {
  let a = foo(1)    //~ error PH109 "no function `foo`"
}
