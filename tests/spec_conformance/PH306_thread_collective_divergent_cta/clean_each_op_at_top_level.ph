// "Lane-level operations": `op<over ctx.thread>(x)` under uniform control; "Result: Uniform", whatever
// the operand (LANGUAGE §9.2).
// pins: lane.cta-collective lane.cta-collective-result L9.2c L8.cta-collective
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  let x = A[0, ctx.thread]
  let s = sum<over ctx.thread>(x)            //~ kind s uniform
  let m = max<over ctx.thread>(x)            //~ kind m uniform
  let n = min<over ctx.thread>(ctx.warp)     //~ kind n uniform
  let a = any<over ctx.thread>(x > 0.0)      //~ kind a uniform
  let b = all<over ctx.thread>(x > 0.0)      //~ kind b uniform
  if a && !b {
    O[0 :+ 1, 0 :+ 256] = A[0 :+ 1, 0 :+ 256] * (s + m + f32(n))
  }
}
