// PH101 (undefined-name)
kernel k() {
  let a = b    //~ error PH101 "`b` is not declared"
  let b = 1
}
