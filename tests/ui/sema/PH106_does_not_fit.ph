// PH106 (shape-mismatch)
kernel k(A: tensor<f32>[N]) {
  A[0 :+ 4] = A[4 :+ 8]    //~ error PH106 "does not fit"
}
