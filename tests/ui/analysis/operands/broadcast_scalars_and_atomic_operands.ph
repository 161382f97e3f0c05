// LANGUAGE §9.7: broadcast scalars and atomic operands
@launch(256)
kernel k(A: tensor<f32>[1, 32], C: tensor<i32>[32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t = t * f32(ctx.lane)                 //~ error PH302 "`elementwise sweep` takes `f32(ctx.lane)`, which differs between lanes"
  t = where(ctx.warp == 0, t, t * 2.0)  //~ error PH302 "`elementwise sweep` takes `ctx.warp == 0`, which differs between warps"
  t = t * f32(ctx.block.x)
  let a = atomic_add(C[ctx.lane], 1)    //~ error PH302 "`atomic_add` takes `ctx.lane`, which differs between lanes"
  let b = atomic_add(C[0], ctx.warp)    //~ error PH302 "`atomic_add` takes `ctx.warp`, which differs between warps"
  let c = atomic_add(C[ctx.block.x], 1)
}
