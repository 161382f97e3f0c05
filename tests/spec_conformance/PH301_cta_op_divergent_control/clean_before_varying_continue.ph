// LANGUAGE §9.3: a continue under K raises only "the statements after it in the same iteration of
// its loop body": the statements before it run in every thread at each iteration.
// pins: L9.3b control.early-exit
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  for r in range(0, 8) {
    O[r :+ 1, 0 :+ 32] = A[r :+ 1, 0 :+ 32]
    barrier()
    if ctx.lane == r {
      continue
    }
    O[r, ctx.lane] = 0.0
  }
  barrier()
}
