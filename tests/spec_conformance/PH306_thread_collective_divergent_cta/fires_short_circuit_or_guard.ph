// "Control" with LANGUAGE §6: the right side of `||` runs only where the left side is false, so a CTA
// collective there runs under per-thread control, in an if condition as in a let.
// pins: lane.cta-collective control.enclosing
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  let x = A[0, ctx.thread]
  if ctx.lane == 0 || any<over ctx.thread>(x > 1.0) {     //~ error PH306
    O[0, ctx.thread] = x
  }
  let y = ctx.warp > 2 && all<over ctx.thread>(x > 0.0)  //~ error PH306
  O[0, ctx.thread] = where(y, x, 0.0)
}
