// PH104 (literal-out-of-range)
// LANGUAGE §1 folds a minus before a literal, not before a parenthesized one
kernel k(O: tensor<i32>[2]) {
  O[0] = -(2147483648)    //~ error PH104 "literal 2147483648 does not fit in i32"
}
