// nested function bindings are listed per call path
fn inner(a: i32) {
  let b = a    //~ kind b uniform varying varying warp-uniform
}
fn outer(a: i32) {
  inner(a)
  inner(ctx.lane)
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  outer(ctx.block.x)
  for i in range(0, 4) {
    outer(ctx.warp)
  }
}
