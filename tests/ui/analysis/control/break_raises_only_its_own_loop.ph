// LANGUAGE §9.3: break raises only its own loop
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  for o in range(0, 2) {
    barrier()
    for i in range(0, 4) {
      barrier()                //~ error PH301
      if ctx.lane == 0 {
        break
      }
    }
    barrier()
  }
}
