// PH107 (not-constant)
kernel k(A: tensor<f32>[N]) {
  var t = A[0 :+ N]    //~ error PH107 "the span length `N`"
}
