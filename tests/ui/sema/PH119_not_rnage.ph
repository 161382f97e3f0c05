// PH119 (bad-loop)
kernel k() {
  for i in rnage(0, 10) {    //~ error PH119 "not `rnage`"
  }
}
