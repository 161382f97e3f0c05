// LANGUAGE §9.5: distinct tensor parameters do not alias
@launch(256)
kernel k(A: tensor<f32>[1, 32], B: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  A[0, ctx.lane] = 1.0
  O[0 :+ 1, 0 :+ 32] = B[0 :+ 1, 0 :+ 32]
  var t: tile<f32>[1, 32] = 0.0
  var u: tile<f32>[1, 32] = 0.0
  t[0, ctx.lane] = 1.0
  u = u * 2.0
  O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]      //~ error PH303 "reads `A`"
}
