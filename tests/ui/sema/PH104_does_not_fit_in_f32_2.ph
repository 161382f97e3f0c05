// PH104 (literal-out-of-range)
kernel k(A: tensor<f32>[N]) {
  store(A[4 :+ 4], max(A[0 :+ 4], 0x10000000000000000000000000000000000000000))    //~ error PH104 "does not fit in f32"
}
