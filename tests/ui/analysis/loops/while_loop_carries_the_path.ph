// while loop carries the path
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  var r = 0
  while r < 4 {    //~ chain "back edge"
    O[r :+ 1, 0 :+ 32] = t             //~ error PH303
    t[0, ctx.lane] = A[r, ctx.lane]
    r += 1
  }
}
