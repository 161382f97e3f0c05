// store then read at the top of the next iteration fires
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, 4) {    //~ chain "through the loop's back edge"
    O[r :+ 1, 0 :+ 32] = t             //~ error PH303
    t[0, ctx.lane] = A[r, ctx.lane]
  }
}
