// LANGUAGE §9.2: a function's result joins the kinds of what it returns: returning its warp-uniform
// argument gives a warp-uniform result, so a barrier under a condition on it is rejected.
// pins: L9.2d everyone.rule-control
fn first_row(w: i32) -> i32 {
  return w * 4
}

@launch(256)
kernel k(O: tensor<f32>[256]) {
  let r = first_row(ctx.warp)       //~ kind r warp-uniform
  if r < 8 {
    barrier()                        //~ error PH301
  }
  O[ctx.thread] = f32(r)
}
