// PH110 (bad-subscript)
kernel k(A: tensor<f32>[N]) {
  var t = A[1:]    //~ error PH110 "open ends are not allowed"
}
