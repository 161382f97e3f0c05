// PH007 (else-after-newline)
kernel k() {
  if true {
  }
  else {    //~ error PH007 "`else` must follow `}` on the same line"
  }
}
