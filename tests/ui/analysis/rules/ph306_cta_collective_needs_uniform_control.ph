// ph306 cta collective needs uniform control
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 1]) {
  let a = sum<over ctx.thread>(A[0, ctx.thread])
  if ctx.block.x == 0 {
    let b = max<over ctx.thread>(A[0, ctx.thread])
  }
  if ctx.warp == 0 {
    let c = sum<over ctx.thread>(A[0, ctx.thread])  //~ error PH306 "`sum<over ctx.thread>` needs every thread of the CTA, but control differs between threads" label "reached only by the warps where the condition holds"
  }
  if ctx.lane == 0 {
    let d = all<over ctx.thread>(true)              //~ error PH306 "`all<over ctx.thread>`" label "reached only by the lanes where the condition holds"
  }
}
