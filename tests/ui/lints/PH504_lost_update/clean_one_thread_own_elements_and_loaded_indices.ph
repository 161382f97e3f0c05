// PH504 stays quiet: one thread updates (or one per warp, at its warp's element), each thread its
// own element, an index read from memory, a plain store, one update after a CTA collective
@launch(128)
kernel k(A: tensor<f32>[128], Idx: tensor<i32>[128], O: tensor<f32>[4], P: tensor<f32>[4],
         Q: tensor<f32>[256], H: tensor<f32>[256], S: tensor<f32>[4]) {
  if ctx.thread == 0 {
    O[0] += 1.0
  }
  if ctx.lane == 0 {
    P[ctx.warp] += 1.0
  }
  Q[ctx.thread] += A[ctx.thread]
  Q[128 + ctx.thread] *= 2.0
  H[Idx[ctx.thread]] += 1.0
  O[1] = 0.0
  let total = sum<over ctx.thread>(A[ctx.thread])
  if ctx.thread == 0 {
    S[2] += total
  }
}
