// PH104 (literal-out-of-range)
kernel k() {
  let a: i8 = 300    //~ error PH104 "literal 300 does not fit in i8"
}
