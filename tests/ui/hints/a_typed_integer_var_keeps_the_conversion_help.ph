// a typed integer var keeps the conversion help
@launch(128)
kernel k(X: tensor<f32>[N]) {
  var acc: i32 = 0
  acc = X[0]    //~ error PH105 help "convert it: `i32(X[0])`"
}
