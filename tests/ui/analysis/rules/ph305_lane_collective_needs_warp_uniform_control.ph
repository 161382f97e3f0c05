// ph305 lane collective needs warp uniform control
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  var s: f32 = 0.0
  if ctx.lane < 16 {
    s = sum<over ctx.lane>(A[0, ctx.thread])   //~ error PH305 "`sum<over ctx.lane>` needs every lane of the warp"
  }
  if ctx.warp == 0 {
    s = max<over ctx.lane>(A[0, ctx.thread])
  }
  let col = ctx.block.x * ctx.warps + ctx.warp
  if col < 7 {
    s = min<over ctx.lane>(A[0, ctx.thread])
  }
  for i in range(0, 4) {
    if ctx.lane == i {
      break
    }
    let b = any<over ctx.lane>(true)          //~ error PH305 "`any<over ctx.lane>`"
  }
  O[0, ctx.thread] = s
}
