// "a collective lowers the kind again": a condition on a lane collective's result is warp-uniform,
// so another lane collective (or a shuffle) may run under it.
// pins: kinds.collective-lowers lane.lane-collective lane.shuffle
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  let x = A[0, ctx.thread]
  if any<over ctx.lane>(x > 0.0) {
    let m = max<over ctx.lane>(x)
    O[0, ctx.thread] = m + shfl<xor 2>(x)
  }
}
