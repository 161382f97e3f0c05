// LANGUAGE §9.7: slice offsets checked at an unused let view
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  let v = A[0, ctx.lane :+ 4]      //~ error PH302 "`slice` takes `ctx.lane`, which differs between lanes"
  let w = A[0, ctx.warp :+ 4]      //~ error PH302 "`slice` takes `ctx.warp`, which differs between warps"
  let u = A[0, ctx.block.x :+ 4]
}
