// LANGUAGE §9.3: warp uniform break allows lane collectives not barriers
@launch(256)
kernel k(A: tensor<f32>[1, 256]) {
  for i in range(0, 4) {
    let s = sum<over ctx.lane>(A[0, ctx.thread])
    barrier()                  //~ error PH301
    if ctx.warp == i {
      break
    }
  }
}
