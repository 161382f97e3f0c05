// PH104 (literal-out-of-range)
// LANGUAGE §1 folds a minus before a literal, not before a parenthesized one
kernel k() {
  let a = 99999999999999999999999999999999999999999999999999999    //~ error PH104 "does not fit in i32"
}
