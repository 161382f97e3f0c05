// PH119 (bad-loop)
kernel k() {
  for i in range(0, 10, 0) {    //~ error PH119 "the step of a `for` loop must be positive, not 0"
  }
}
