// store two iterations before the read still fires
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, 4) {    //~ chain "back edge"
    if r == 2 {
      O[r :+ 1, 0 :+ 32] = t           //~ error PH303
    }
    if r == 0 {
      t[0, ctx.lane] = A[r, ctx.lane]
    }
  }
}
