// LANGUAGE §9.5: store through a view stores the buffer
@launch(256)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  let v = t[2 :+ 1, 0 :+ 32]
  v[0, ctx.lane] = 1.0
  O[0 :+ 4, 0 :+ 32] = t           //~ error PH303 "`tile copy` reads `t`"
}
