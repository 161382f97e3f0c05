// PH005 (syntax-error)
kernel k() {
  let a = 1 +
}    //~ error PH005 "found `}`"
