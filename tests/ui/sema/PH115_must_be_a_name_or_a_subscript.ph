// PH115 (bad-assignment)
kernel k() {
  1 = 2    //~ error PH115 "must be a name or a subscript"
}
