// LANGUAGE §9.3: a return under varying control raises the rest of the kernel; lanes that returned
// are missing from the warp's fold.
// pins: lane.lane-collective control.early-exit L9.3c
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 4]) {
  let x = A[0, ctx.thread]
  if x < 0.0 {
    return
  }
  let s = sum<over ctx.lane>(x)       //~ error PH305
  if ctx.lane == 0 {
    O[0, ctx.warp] = s
  }
}
