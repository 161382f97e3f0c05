// PH503: statements after return, break and continue in the same block, one warning per run
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  for i in range(0, 4) {
    if A[i] > 0.0 {
      continue
      O[ctx.thread] = 1.0                   //~ warning PH503 "unreachable code"
      O[ctx.thread] = 2.0
    }
    O[ctx.thread] = A[i]
    break
    O[ctx.thread] = 3.0                     //~ warning PH503
  }
  if A[ctx.thread] < 0.0 {
    return
    O[ctx.thread] = 0.0                     //~ warning PH503
  }
}
