// uniform return in a loop is fine
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  for i in range(0, 4) {
    barrier()
    if ctx.block.x == i {
      return
    }
    barrier()
  }
  barrier()
}
