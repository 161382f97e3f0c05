// PH005 (syntax-error)
kernel k() {
  let = 1    //~ error PH005 "expected a name, found `=`"
}
