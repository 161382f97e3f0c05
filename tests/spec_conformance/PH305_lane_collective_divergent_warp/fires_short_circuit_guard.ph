// "Control" with LANGUAGE §6: `&&` and `||` short-circuit, so a lane collective or a shuffle on their
// right runs only in the lanes where the left side lets it.
// pins: lane.lane-collective lane.shuffle control.enclosing
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  let x = A[0, ctx.thread]
  let some = ctx.lane < 4 && any<over ctx.lane>(x > 0.0)      //~ error PH305
  let swap = ctx.lane == 0 || shfl<xor 1>(x) > 0.0            //~ error PH304
  let fine = ctx.warp < 2 && all<over ctx.lane>(x > 0.0)
  O[0, ctx.thread] = where(some || swap || fine, x, 0.0)
}
