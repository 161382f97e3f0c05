// PH118 (bad-type)
kernel k(A: tensor<f32>[N]) {
  var x: tensor<f32>[4]    //~ error PH118 "a tensor cannot be declared as a `var`"
}
