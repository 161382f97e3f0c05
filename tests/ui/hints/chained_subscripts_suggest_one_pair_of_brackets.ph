// `X[i][0]` (C's and NumPy's habit) is written `X[i, 0]`
@launch(64)
kernel k(X: tensor<f32>[64, 4], O: tensor<f32>[64]) {
  let i = ctx.thread
  O[i] = X[i][0]    //~ error PH110 "in one pair of brackets" help "`X[i, 0]`"
}
