// LANGUAGE §9.5: "distinct tensor parameters do not alias", and a read of another tile than the one
// stored per thread needs no barrier.
// pins: L9.5 everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[2, 32], B: tensor<f32>[2, 32], O: tensor<f32>[2, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var u: tile<f32>[1, 32] = A[1 :+ 1, 0 :+ 32]
  B[0, ctx.lane] = 1.0
  t[0, ctx.lane] = 2.0
  O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]
  O[1 :+ 1, 0 :+ 32] = u
}
