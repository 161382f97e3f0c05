// PH505: a load at the top of a loop reads what another thread stored in the previous iteration
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  var t: tile<f32>[64] = 0.0
  for _i in range(0, 4) {
    let left = t[(ctx.thread + 63) % 64]    //~ warning PH505
    t[ctx.thread] = left + A[ctx.thread]
  }
  barrier()
  O[ctx.thread] = t[ctx.thread]
}
