// LANGUAGE §9.2: shuffle result is the join of value and lane
@launch(256)
kernel k(A: tensor<f32>[1, 256]) {
  let a = shfl<idx 3>(ctx.block.x)    //~ kind a uniform
  let b = shfl<idx ctx.warp>(ctx.block.x)    //~ kind b warp-uniform
  let c = shfl<xor 1>(ctx.warp)    //~ kind c warp-uniform
  let d = shfl<down 1>(ctx.lane)    //~ kind d varying
  let e = shfl<idx ctx.lane>(1)    //~ kind e varying
}
