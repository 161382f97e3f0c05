// LANGUAGE §9.3: warp uniform control label says warps
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  if ctx.warp == 0 {
    barrier()                      //~ error PH301 label "reached only by the warps where the condition holds"
  }
}
