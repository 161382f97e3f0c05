// barrier at the end of the body cuts the back edge
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, 4) {
    O[r :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = A[r, ctx.lane]
    barrier()
  }
}
