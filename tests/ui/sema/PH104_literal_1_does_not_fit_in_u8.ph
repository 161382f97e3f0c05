// PH104 (literal-out-of-range)
kernel k(A: tensor<u8>[N]) {
  A[0] = -1    //~ error PH104 "literal -1 does not fit in u8"
}
