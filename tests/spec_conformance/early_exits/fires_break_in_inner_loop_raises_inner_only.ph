// LANGUAGE §9.3: a varying break raises its own loop (the inner one); the outer loop's statements are
// not raised, the inner loop's are.
// pins: L9.3a control.early-exit
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  for r in range(0, 4) {
    for c in range(0, 4) {
      barrier()                       //~ error PH301
      if A[c, ctx.lane] > 0.0 {
        break
      }
    }
    barrier()
  }
}
