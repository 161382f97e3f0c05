// per-thread-values.md, the kernel at the top of the page (the lanes matvec): accepted.
// row is warp-uniform, at and acc varying, total warp-uniform; runs and scalar loads and stores
// run anywhere, and the lane collective sits under uniform control. Expected: no errors.
@launch(128)
@aligned(K = 128)
kernel lanes_matvec(W: tensor<f32>[N, K], x: tensor<f32>[1, K], y: tensor<f32>[1, N]) {
  let row = ctx.block.x * ctx.warps + ctx.warp    //~ kind row warp-uniform
  var acc: f32 = 0.0    //~ kind acc varying
  if row < N {
    for k in range(0, K, ctx.lanes * 4) {    //~ kind k uniform
      let at = k + ctx.lane * 4    //~ kind at varying
      acc += sum(W[row, at :+ 4] * x[0, at :+ 4])
    }
  }
  let total = sum<over ctx.lane>(acc)    //~ kind total warp-uniform
  if ctx.lane == 0 && row < N {
    y[0, row] = total
  }
}
