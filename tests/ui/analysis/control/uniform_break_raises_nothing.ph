// LANGUAGE §9.3: uniform break raises nothing
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var c = 0    //~ kind c uniform
  for i in range(0, 4) {
    barrier()
    c = c + 1
    if ctx.block.x == i {
      break
    }
    barrier()
  }
}
