// LANGUAGE §9.6: store after the read has no path
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  O[0 :+ 1, 0 :+ 32] = t
  t[0, ctx.lane] = 1.0
}
