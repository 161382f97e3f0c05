// PH105 (type-mismatch)
kernel k(A: tensor<i8>[N]) {
  A[0] = A[1] * A[2]    //~ error PH105 "expected i8, found i32"
}
