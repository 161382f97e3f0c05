// store and read in exclusive branches meet through the back edge
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, 4) {
    if r % 2 == 0 {
      t[0, ctx.lane] = A[r, ctx.lane]
    } else {
      O[r :+ 1, 0 :+ 32] = t           //~ error PH303
    }
  }
}
