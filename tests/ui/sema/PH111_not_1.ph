// PH111 (bad-run)
kernel k(A: tensor<f32>[N]) {
  let a = elem(A[0 :+ 1])    //~ error PH111 "not 1"
}
