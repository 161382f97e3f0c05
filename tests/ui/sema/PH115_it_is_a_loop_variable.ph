// PH115 (bad-assignment)
kernel k() {
  for i in range(0, 4) {
    i = 2    //~ error PH115 "it is a loop variable"
  }
}
