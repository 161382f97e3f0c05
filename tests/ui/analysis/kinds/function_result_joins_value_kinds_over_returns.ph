// LANGUAGE §9.2: function result joins value kinds over returns
fn inc(a: i32) -> i32 {
  let b = a + 1
  return b
}
fn plus_lane(a: i32) -> i32 {
  return a + ctx.lane
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  let u = inc(ctx.block.x)    //~ kind u uniform
  let w = inc(ctx.warp)    //~ kind w warp-uniform
  let v = plus_lane(1)    //~ kind v varying
}
