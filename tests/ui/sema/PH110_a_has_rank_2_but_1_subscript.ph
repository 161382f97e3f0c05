// PH110 (bad-subscript)
kernel k(A: tensor<f32>[N, M]) {
  let a = A[0]    //~ error PH110 "`A` has rank 2, but 1 subscript is given"
}
