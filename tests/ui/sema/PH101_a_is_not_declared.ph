// PH101 (undefined-name)
kernel k() {
  if true {
    let a = 1
  }
  let b = a    //~ error PH101 "`a` is not declared"
}
