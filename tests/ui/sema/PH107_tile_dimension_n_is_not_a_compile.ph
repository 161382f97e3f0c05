// PH107 (not-constant)
kernel k(A: tensor<f32>[N]) {
  var t: tile<f32>[N]    //~ error PH107 "tile dimension `N` is not a compile-time constant"
}
