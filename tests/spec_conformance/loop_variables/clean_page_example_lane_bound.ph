// "A loop variable is as varying as the loop's bounds. for k in range(ctx.lane, K, ctx.lanes) makes k
// varying." (The page's fragment, as LANGUAGE §11's lane_strided kernel.)
// pins: kinds.loop-variable kinds.example kinds.scalar-var-registers
@launch(128)
kernel lane_strided(W: tensor<f32>[N, K], A: tensor<f32>[1, K], y: tensor<f32>[1, N]) {
  let col = ctx.block.x * ctx.warps + ctx.warp     //~ kind col warp-uniform
  var acc: f32 = 0.0                               //~ kind acc varying
  for k in range(ctx.lane, K, ctx.lanes) {         //~ kind k varying
    acc += W[col, k] * A[0, k]
  }
  let total = sum<over ctx.lane>(acc)              //~ kind total warp-uniform
  if ctx.lane == 0 && col < N {
    y[0, col] = total
  }
}
