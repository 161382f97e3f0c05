// LANGUAGE §9.3: control is the join of enclosing conditions
@launch(256)
kernel k(A: tensor<f32>[1, 64], F: tensor<i32>[4]) {
  if ctx.block.x == 0 {
    barrier()
    if ctx.warp == 1 {
      barrier()                    //~ error PH301 "`barrier()` runs once per CTA"
      if ctx.block.y == 0 {
        barrier()                  //~ error PH301
      }
    }
    barrier()
  }
  if ctx.lane == 0 {
  } else if ctx.block.x == 0 {
    barrier()                      //~ error PH301
  } else {
    barrier()                      //~ error PH301
  }
  var n = 0
  while n < ctx.lane {
    barrier()                      //~ error PH301
    n += 1
  }
  for i in range(0, ctx.warp) {
    barrier()                      //~ error PH301
  }
  barrier()
}
