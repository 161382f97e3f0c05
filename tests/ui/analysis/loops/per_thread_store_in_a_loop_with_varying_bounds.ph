// per thread store in a loop with varying bounds
// control varying (§9.3) makes the store per-thread (§9.4) even at a uniform index
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, ctx.lane) {
    t[0, 0] = 1.0    //~ chain "under control that differs between lanes"
  }
  O[0 :+ 1, 0 :+ 32] = t               //~ error PH303
}
