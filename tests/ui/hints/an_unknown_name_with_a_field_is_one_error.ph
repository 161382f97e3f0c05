// an unknown name with a field is one error
@launch(32)
kernel k(O: tensor<f32>[32]) {
  O[ctx.lane] = foo.x    //~ error PH101
}
