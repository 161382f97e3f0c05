// PH111 (bad-run)
kernel k(A: tensor<f32>[N]) {
  let a = sum(A[0 :+ 32])    //~ error PH111 "a run's length must be a constant from 2 to 16, not 32"
}
