// LANGUAGE §9.2: function result includes the control at each return
// no returned value is varying, but the first return runs under varying control, and the
// second after it (raised, §9.3)
fn pick(a: i32) -> i32 {
  if ctx.lane == 0 {
    return 1
  }
  return a
}
fn pick_w(a: i32) -> i32 {
  if ctx.warp == 0 {
    return 1
  }
  return a
}
fn same(a: i32) -> i32 {
  if ctx.block.x == 0 {
    return 1
  }
  return a
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  let p = pick(ctx.block.x)    //~ kind p varying
  let q = pick_w(ctx.block.x)    //~ kind q warp-uniform
  let s = same(ctx.block.x)    //~ kind s uniform
}
