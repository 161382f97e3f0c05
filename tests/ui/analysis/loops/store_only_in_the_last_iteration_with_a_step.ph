// store only in the last iteration with a step
@launch(32)
kernel k(A: tensor<f32>[1, K], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  for c in range(0, K, 4) {
    O[0 :+ 1, 0 :+ 32] = t
    if c + 4 >= K {
      t[0, ctx.lane] = A[0, ctx.lane]
    }
  }
  barrier()
  for c in range(0, 8, 2) {
    O[0 :+ 1, 0 :+ 32] = t
    if c == 6 {
      t[0, ctx.lane] = A[0, ctx.lane]
    }
  }
  barrier()
  for c in range(0, 8, 2) {
    O[0 :+ 1, 0 :+ 32] = t      //~ error PH303
    if c == 4 {
      t[0, ctx.lane] = A[0, ctx.lane]
    }
  }
}
