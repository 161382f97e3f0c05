// PH005 (syntax-error)
kernel k() {
  x = [1]    //~ error PH005 "found `[`"
}
