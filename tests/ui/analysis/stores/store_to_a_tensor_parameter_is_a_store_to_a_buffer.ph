// LANGUAGE §9.4: store to a tensor parameter is a store to a buffer
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], P: tensor<f32>[1, 32]) {
  O[0, ctx.lane] = 2.0
  P[0 :+ 1, 0 :+ 32] = O[0 :+ 1, 0 :+ 32]     //~ error PH303 "`tile copy` reads `O`"
  barrier()
  O[0, 0] = 1.0
  P[0 :+ 1, 0 :+ 32] = O[0 :+ 1, 0 :+ 32]
}
