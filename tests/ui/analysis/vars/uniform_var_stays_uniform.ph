// LANGUAGE §9.1: uniform var stays uniform
@launch(256)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var x = 0    //~ kind x uniform
  var t: tile<f32>[1, 32] = A[0 :+ 1, x :+ 32]
  O[0 :+ 1, 0 :+ 32] = t
  x = ctx.block.x + 1
  if x == 0 {
    barrier()
  }
}
