// the conditional operator points to where
@launch(32)
kernel k(A: tensor<f32>[32]) {
  A[ctx.lane] = A[ctx.lane] > 0.0 ? 1.0 : 0.0    //~ error PH003 help "`where(c, a, b)`" PH005
}
