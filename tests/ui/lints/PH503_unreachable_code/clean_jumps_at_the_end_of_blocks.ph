// PH503 stays quiet: every jump ends its block; statements after the if that holds one run
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  for i in range(0, 4) {
    if A[i] > 0.0 {
      continue
    }
    if A[i] < -1.0 {
      break
    }
    O[ctx.thread] = A[i]
  }
  if A[ctx.thread] < 0.0 {
    return
  }
  O[ctx.thread] = 0.0
}
