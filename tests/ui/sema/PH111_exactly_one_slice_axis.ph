// PH111 (bad-run)
kernel k(A: tensor<f32>[N, M]) {
  let a = sum(A[0 :+ 4, 0 :+ 4])    //~ error PH111 "exactly one slice axis"
}
