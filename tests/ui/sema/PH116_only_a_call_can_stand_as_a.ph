// PH116 (bad-statement)
kernel k() {
  1 + 2    //~ error PH116 "only a call can stand as a statement"
}
