// "An expression is as varying as its most varying operand": ctx.thread / 32 equals ctx.warp, but it
// is built from ctx.thread, so it is varying, and so is the control under it.
// pins: kinds.expression lane.lane-collective
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 4]) {
  let w = ctx.thread / 32           //~ kind w varying
  if w == 0 {
    let s = sum<over ctx.lane>(A[0, ctx.thread])    //~ error PH305
    O[0, 0] = s
  }
}
