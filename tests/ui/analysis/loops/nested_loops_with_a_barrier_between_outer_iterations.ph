// nested loops with a barrier between outer iterations
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for o in range(0, 2) {
    for r in range(0, 4) {
      O[r :+ 1, 0 :+ 32] = t
      if r == 3 {
        t[0, ctx.lane] = A[r, ctx.lane]
      }
    }
    barrier()
  }
}
