// PH101 (undefined-name)
kernel k() {
  let a = b + 1    //~ error PH101 "`b` is not declared"
}
