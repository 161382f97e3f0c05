// "This is the lane level of the language: a thread can branch on its own lane, loop to its own bound
// and store its own result."
// pins: anywhere.lane-level anywhere.ops
@launch(128)
kernel k(A: tensor<f32>[1, 4096], O: tensor<f32>[1, 128]) {
  var best = -1.0
  if ctx.lane % 3 == 0 {
    for c in range(ctx.thread * 4, ctx.thread * 4 + ctx.lane + 1) {
      best = max(best, A[0, c])
    }
  }
  O[0, ctx.thread] = best
}
