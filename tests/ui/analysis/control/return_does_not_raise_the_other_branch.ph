// LANGUAGE §9.3: return does not raise the other branch
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  if ctx.block.x == 0 {
    if ctx.lane == 0 {
      return
    }
    barrier()                  //~ error PH301
  } else {
    barrier()
  }
  barrier()                    //~ error PH301
}
