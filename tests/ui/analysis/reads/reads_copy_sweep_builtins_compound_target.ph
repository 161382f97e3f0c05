// LANGUAGE §9.5: reads copy sweep builtins compound target
@launch(256)
kernel k(A: tensor<f32>[32, 32], O: tensor<f32>[32, 32]) {
  var t: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
  var u: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  O[0 :+ 32, 0 :+ 32] = t          //~ error PH303 "`tile copy` reads `t`"
  barrier()
  t[0, ctx.lane] = 1.0
  u = t * 2.0                      //~ error PH303 "`elementwise sweep` reads `t`"
  barrier()
  t[0, ctx.lane] = 1.0
  u = where(u > 0.0, u, t)         //~ error PH303 "`elementwise sweep` reads `t`"
  barrier()
  t[0, ctx.lane] = 1.0
  t += u                           //~ error PH303 "`elementwise sweep` reads `t`"
  barrier()
  O[0, ctx.lane] = 2.0
  O[0 :+ 32, 0 :+ 32] += u         //~ error PH303 "`elementwise sweep` reads `O`"
  barrier()
  u[0, ctx.lane] = 1.0
  let d = dot(t, u)                //~ error PH303 "`dot` reads `u`"
  barrier()
  t[ctx.lane, 0] = 1.0
  let s = rowsum(t)                //~ error PH303 "`rowsum` reads `t`"
  barrier()
  t[ctx.lane, 0] = 1.0
  let m = rowmax(t)                //~ error PH303 "`rowmax` reads `t`"
  barrier()
  t[ctx.lane, 0] = 1.0
  let c = cumsum(t)                //~ error PH303 "`cumsum` reads `t`"
  barrier()
  t[ctx.lane, 0] = 1.0
  let tr = transpose(t)            //~ error PH303 "`transpose` reads `t`"
  barrier()
  t[ctx.lane, 0] = 1.0
  let lo = tril(t)                 //~ error PH303 "`tril` reads `t`"
  barrier()
  t[ctx.lane, 0] = 1.0
  let e = exp(t)                   //~ error PH303 "reads `t`"
}
