// varying break after a barrier in the same loop and a barrier after it
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  for i in range(0, 4) {
    barrier()              //~ error PH301 "`barrier()` runs once per CTA, so every thread must reach it" label "lanes still in the loop" help "`break`"
    if ctx.lane == i {
      break    //~ chain "leave the loop"
    }
  }
  barrier()
}
