// LANGUAGE §9.3: a break under warp-uniform control raises its loop to warp-uniform only, which is
// still "the same across a warp": the shuffle in the loop stays legal.
// pins: lane.shuffle L9.3a control.early-exit
@launch(128)
kernel k(A: tensor<f32>[8, 128], O: tensor<f32>[1, 128]) {
  var v = 0.0
  for r in range(0, 8) {
    v += shfl<xor 1>(A[r, ctx.thread])
    if ctx.warp == r {
      break
    }
  }
  O[0, ctx.thread] = v
}
