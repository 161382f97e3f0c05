// "An expression is as varying as its most varying operand. ctx.block.x * ctx.warps + ctx.warp is
// warp-uniform; col * K + ctx.lane is varying."
// pins: kinds.expression kinds.order L9.9 intro.inferred
@launch(128)
kernel k(A: tensor<f32>[1, 4096], O: tensor<f32>[1, 4096], K: i32) {
  let col = ctx.block.x * ctx.warps + ctx.warp    //~ kind col warp-uniform
  let at = col * K + ctx.lane                     //~ kind at varying
  let u = ctx.block.x * K + 3                     //~ kind u uniform
  O[0, at % 4096] = A[0, (u + col) % 4096]
}
