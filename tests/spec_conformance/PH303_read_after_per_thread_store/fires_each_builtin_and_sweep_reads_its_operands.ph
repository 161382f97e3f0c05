// LANGUAGE §9.5: a CTA-wide operation reads "every tile, slice or view operand of a sweep" and "the
// operands of the tile built-ins": each below reads a buffer stored per thread just before. One
// diagnostic per statement and buffer: the line with cumsum and tril reports the statement's sweep.
// pins: L9.5 everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[16, 32], O: tensor<f32>[16, 32]) {
  var t: tile<f32>[16, 16] = A[0 :+ 16, 0 :+ 16]
  var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  A[0, ctx.lane] = 1.0
  u = u + A[0 :+ 1, 0 :+ 32]          //~ error PH303 "`elementwise sweep` reads `A`"
  barrier()
  t[ctx.lane % 16, 0] = 1.0
  t = transpose(t)                    //~ error PH303 "`transpose` reads `t`"
  barrier()
  t[ctx.lane % 16, 0] = 1.0
  var r: tile<f32>[16, 1] = rowmax(t) //~ error PH303 "`rowmax` reads `t`"
  barrier()
  t[ctx.lane % 16, 0] = 1.0
  t = tmax(t, 0.0)                    //~ error PH303
  barrier()
  t[ctx.lane % 16, 0] = 1.0
  t = cumsum(t) + tril(t)             //~ error PH303
  barrier()
  O[0 :+ 16, 0 :+ 16] = t
  O[0 :+ 1, 16 :+ 16] = u[0 :+ 1, 0 :+ 16]
  O[0 :+ 16, 31 :+ 1] = r
}
