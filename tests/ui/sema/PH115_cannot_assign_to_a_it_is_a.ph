// PH115 (bad-assignment)
kernel k() {
  let a = 1
  a = 2    //~ error PH115 "cannot assign to `a`: it is a `let`"
}
