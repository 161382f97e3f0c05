// PH105 (type-mismatch)
kernel k(p: bool, a: i32) {
  let z = where(p, p, a)    //~ error PH105 "`where` selects between two numbers or two bools, not bool and i32"
}
