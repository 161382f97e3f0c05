// PH106 (shape-mismatch)
kernel k(A: tensor<f32>[N]) {
  let a = sum(A[0 :+ 4] * A[0 :+ 8])    //~ error PH106 "runs of different lengths (4 and 8)"
}
