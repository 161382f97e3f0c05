// "Lane-level operations": under uniform control every lane of every warp runs the shuffle. Each mode,
// with a varying lane expression E too (E is "any" in LANGUAGE §8's table).
// pins: lane.shuffle L8.lane-level
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var v = A[0, ctx.thread]
  v = shfl<xor 1>(v) + shfl<up 1>(v) + shfl<down 1>(v) + shfl<idx 0>(v)
  v = shfl<idx (ctx.lane + 1) % 32>(v)
  O[0, ctx.thread] = v
}
