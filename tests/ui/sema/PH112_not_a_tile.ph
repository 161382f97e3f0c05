// PH112 (sum-of-non-run)
kernel k(A: tensor<f32>[N, M]) {
  var t: tile<f32>[4, 4] = A[0 :+ 4, 0 :+ 4]
  let a = sum(t)    //~ error PH112 "not a tile" help "rowsum"
}
