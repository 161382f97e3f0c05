// LANGUAGE §9.3: a continue raises its own loop body only: an outer loop's statements after the inner
// loop are not raised.
// pins: L9.3b control.early-exit
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  for r in range(0, 4) {
    for c in range(0, 4) {
      if ctx.lane == c {
        continue
      }
      O[r, ctx.lane] = 0.0
    }
    barrier()
    O[r :+ 1, 0 :+ 32] = A[r :+ 1, 0 :+ 32]
  }
}
