// LANGUAGE §9.5: reads slices and views as operands
@launch(256)
kernel k(A: tensor<f32>[32, 32], O: tensor<f32>[32, 32]) {
  var t: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
  var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  let v = t[1 :+ 1, 0 :+ 32]
  A[0, ctx.lane] = 1.0
  u = A[0 :+ 1, 0 :+ 32] * 2.0                //~ error PH303 "`elementwise sweep` reads `A`"
  barrier()
  t[1, ctx.lane] = 1.0
  u = v * 2.0                                 //~ error PH303 "`elementwise sweep` reads `v`" note "`v` is a view of `t`"
  barrier()
  A[0, ctx.lane] = 1.0
  let s = rowsum(A[0 :+ 8, 0 :+ 32])          //~ error PH303 "`rowsum` reads `A`"
  barrier()
  t[1, ctx.lane] = 1.0
  let tt = transpose(v[0 :+ 1, 0 :+ 32])      //~ error PH303 "`transpose` reads `v`" note "`v` is a view of `t`"
}
