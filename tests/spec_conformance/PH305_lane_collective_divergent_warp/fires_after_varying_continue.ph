// LANGUAGE §9.3: a continue under varying control raises the rest of the iteration.
// pins: lane.lane-collective control.early-exit L9.3b
@launch(128)
kernel k(A: tensor<f32>[8, 128], O: tensor<f32>[8, 4]) {
  for r in range(0, 8) {
    let x = A[r, ctx.thread]
    if x == 0.0 {
      continue
    }
    let m = max<over ctx.lane>(x)     //~ error PH305
    if ctx.lane == 0 {
      O[r, ctx.warp] = m
    }
  }
}
