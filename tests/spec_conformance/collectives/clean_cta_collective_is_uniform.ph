// "Lane-level operations": op<over ctx.thread>(x) gives a "Uniform" result, whatever the operand
// (LANGUAGE §9.2), so it may be a slice offset and a CTA-wide condition.
// pins: lane.cta-collective-result L9.2c
@launch(256)
kernel k(A: tensor<f32>[1, 256], C: tensor<i32>[256], O: tensor<f32>[1, 256]) {
  let lo = min<over ctx.thread>(C[ctx.thread])     //~ kind lo uniform
  let ok = all<over ctx.thread>(C[ctx.thread] > 0) //~ kind ok uniform
  let w = max<over ctx.thread>(ctx.warp)           //~ kind w uniform
  if ok {
    O[0 :+ 1, lo % 128 :+ 8] = A[0 :+ 1, w :+ 8]
  }
}
