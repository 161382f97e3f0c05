// the shuffle rule gives the warp hint too
@launch(64)
kernel k(X: tensor<f32>[64], O: tensor<f32>[64]) {
  var v = X[ctx.thread]
  if ctx.thread < 32 {
    v = shfl<xor 1>(v)    //~ error PH304 note "ctx.warp == 0"
  }
  O[ctx.thread] = v
}
