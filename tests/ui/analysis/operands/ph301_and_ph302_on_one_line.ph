// LANGUAGE §9.7: ph301 and ph302 on one line
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  if ctx.lane == 0 {
    O[0 :+ 1, ctx.lane :+ 1] = A[0 :+ 1, 0 :+ 1]    //~ error PH301 PH302
  }
}
