// LANGUAGE §9.3: an exit under warp-uniform control raises to warp-uniform: the lane collective after
// it is fine, the CTA collective and the copy are not.
// pins: L9.3c control.early-exit
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  if ctx.warp == 7 {
    return
  }
  let a = sum<over ctx.lane>(A[0, ctx.thread])
  let b = sum<over ctx.thread>(A[0, ctx.thread])    //~ error PH306
  O[0 :+ 1, 0 :+ 256] = A[0 :+ 1, 0 :+ 256]          //~ error PH301
  O[0, ctx.thread] = a + b
}
