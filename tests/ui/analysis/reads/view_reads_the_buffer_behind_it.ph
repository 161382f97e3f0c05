// LANGUAGE §9.5: view reads the buffer behind it
@launch(256)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  let v = t[0 :+ 1, 0 :+ 32]
  t[1, ctx.lane] = 1.0
  O[0 :+ 1, 0 :+ 32] = v           //~ error PH303 "`tile copy` reads `v`" note "`v` is a view of `t`"
  barrier()
  let w = v[0 :+ 1, 0 :+ 16]
  t[0, ctx.lane] = 2.0
  O[0 :+ 1, 0 :+ 16] = w           //~ error PH303 "reads `w`" note "`w` is a view of `t`"
  barrier()
  let g = A[1 :+ 1, 0 :+ 32]
  A[0, ctx.lane] = 3.0
  O[0 :+ 1, 0 :+ 32] = g           //~ error PH303 "reads `g`" note "`g` is a view of `A`"
}
