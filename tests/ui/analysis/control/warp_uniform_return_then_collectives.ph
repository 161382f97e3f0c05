// LANGUAGE §9.3: warp uniform return then collectives
@launch(256)
kernel k(A: tensor<f32>[1, 256]) {
  if ctx.warp == 0 {
    return
  }
  let s = sum<over ctx.lane>(1.0)
  let t = sum<over ctx.thread>(1.0)     //~ error PH306 label "warps that have not returned"
}
