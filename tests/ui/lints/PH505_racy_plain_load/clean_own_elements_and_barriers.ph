// PH505 stays quiet: a thread's own element (a compound assignment's read included), a load
// after a barrier, a load before any store, a uniform store
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  var t: tile<f32>[64] = 0.0
  let before = t[(ctx.thread + 1) % 64]
  t[ctx.thread] = A[ctx.thread] + before
  t[ctx.thread] += 1.0
  let mine = t[ctx.thread]
  barrier()
  let right = t[(ctx.thread + 1) % 64]
  O[ctx.thread] = mine + right
  var s: tile<f32>[4] = 0.0
  s[0] = 1.0
  O[ctx.thread] += s[0]
}
