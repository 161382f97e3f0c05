// continue in a loop
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  for i in range(0, 4) {
    barrier()
    if ctx.lane == 0 {
      continue
    }
    barrier()              //~ error PH301 "`barrier()` runs once per CTA"
  }
  barrier()
  var n = 0
  while n < 4 {
    n += 1
    barrier()
    if ctx.warp == 1 {
      continue
    }
    let s = sum<over ctx.lane>(1)
    let t = sum<over ctx.thread>(1)   //~ error PH306
  }
}
