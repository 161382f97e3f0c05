// LANGUAGE §9.1: var is the join over its assignments
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var lane_later = 0    //~ kind lane_later varying
  lane_later = ctx.lane
  var warp_later = ctx.block.x    //~ kind warp_later warp-uniform
  warp_later = ctx.warp + 1
  var only_uniform = 0    //~ kind only_uniform uniform
  only_uniform = ctx.block.x * 2
  var init_varying = ctx.lane    //~ kind init_varying varying
  init_varying = 0
  var both = ctx.warp    //~ kind both varying
  both = ctx.thread
}
