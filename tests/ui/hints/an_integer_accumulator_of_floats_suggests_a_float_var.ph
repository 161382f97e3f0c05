// an integer accumulator of floats suggests a float var
@launch(128)
kernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  var acc = 0
  for i in range(0, N) {
    acc += X[i]    //~ error PH105 help "`var acc: f32 = 0.0`"
  }
}
