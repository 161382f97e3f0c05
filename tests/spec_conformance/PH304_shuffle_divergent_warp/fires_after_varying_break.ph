// LANGUAGE §9.3: a varying break raises every statement of its loop; a shuffle at the top of the
// loop then runs without the lanes that left.
// pins: lane.shuffle control.early-exit L9.3a
@launch(128)
kernel k(A: tensor<f32>[8, 128], O: tensor<f32>[1, 128]) {
  var v = 0.0
  for r in range(0, 8) {
    v += shfl<xor 16>(A[r, ctx.thread])    //~ error PH304
    if v > 10.0 {
      break
    }
  }
  O[0, ctx.thread] = v
}
