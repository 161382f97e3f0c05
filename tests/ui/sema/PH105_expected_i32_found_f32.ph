// PH105 (type-mismatch)
kernel k(A: tensor<f32>[N]) {
  var x: i32 = 0
  x = A[0]    //~ error PH105 "expected i32, found f32"
}
