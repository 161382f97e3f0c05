// "Control": "Inside if ctx.lane == 0 { .. } the control is varying; inside if col < N { .. } with a
// warp-uniform col it is warp-uniform." A lane collective shows the difference: rejected only under
// the varying one; a CTA collective is rejected under both.
// pins: control.examples control.enclosing
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256], N: i32) {
  let x = A[0, ctx.thread]
  let col = ctx.block.x * ctx.warps + ctx.warp
  if ctx.lane == 0 {
    let a = sum<over ctx.lane>(x)        //~ error PH305
    let b = sum<over ctx.thread>(x)      //~ error PH306
    O[0, ctx.thread] = a + b
  }
  if col < N {
    let c = sum<over ctx.lane>(x)
    let d = sum<over ctx.thread>(x)      //~ error PH306
    O[0, ctx.thread] = c + d
  }
}
