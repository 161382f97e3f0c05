// LANGUAGE §9.2: collective results whatever the operand
@launch(256)
kernel k(A: tensor<f32>[1, 256]) {
  let l1 = sum<over ctx.lane>(ctx.lane)    //~ kind l1 warp-uniform
  let l2 = max<over ctx.lane>(ctx.block.x)    //~ kind l2 warp-uniform
  let l3 = any<over ctx.lane>(ctx.thread == 0)    //~ kind l3 warp-uniform
  let c1 = sum<over ctx.thread>(ctx.lane)    //~ kind c1 uniform
  let c2 = min<over ctx.thread>(A[0, ctx.thread])    //~ kind c2 uniform
  let c3 = all<over ctx.thread>(ctx.warp == 1)    //~ kind c3 uniform
}
