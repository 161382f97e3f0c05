// var assigned uniform values in a loop stays uniform
@launch(256)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var x = 0    //~ kind x uniform
  for i in range(0, 4) {    //~ kind i uniform
    if x == 0 {
      barrier()
    }
    O[0 :+ 1, x :+ 4] = A[0 :+ 1, 0 :+ 4]
    x = x + i * ctx.block.x
  }
}
