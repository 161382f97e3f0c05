// LANGUAGE §9.2: the result joins "the control kind at the return": constants returned under a
// per-lane condition give a varying result; under a warp condition a warp-uniform one.
// pins: L9.2d L9.3d
fn pick(x: i32) -> i32 {
  if x > 3 {
    return 1
  }
  return 0
}

@launch(256)
kernel k(O: tensor<i32>[256], n: i32) {
  let a = pick(ctx.lane)      //~ kind a varying
  let b = pick(ctx.warp)      //~ kind b warp-uniform
  let c = pick(n)             //~ kind c uniform
  O[ctx.thread] = a + b + c
}
