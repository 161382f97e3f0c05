// LANGUAGE §9.6: barriers on both branches cut every path
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  if ctx.block.x == 0 {
    barrier()
  } else {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t
}
