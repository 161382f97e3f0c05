// LANGUAGE §8: an elementwise sweep includes `exp log sqrt tanh round tmax`, `where` and conversions
// on tiles; under warp-uniform control each is rejected ("the other warps never arrive").
// pins: everyone.rule-control ex.warp-branch L8.cta-wide
@launch(256)
kernel k(A: tensor<f32>[2, 32], O: tensor<f32>[2, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var u: tile<f32>[1, 32] = A[1 :+ 1, 0 :+ 32]
  var h: tile<f16>[1, 32] = f16(t)
  if ctx.warp == 2 {
    t = exp(t)             //~ error PH301 "`elementwise sweep`"
    t = log(t)             //~ error PH301
    t = sqrt(t)            //~ error PH301
    t = tanh(t)            //~ error PH301
    t = round(t)           //~ error PH301
    t = tmax(t, u)         //~ error PH301
    t = where(t > u, t, u) //~ error PH301
    h = f16(u)             //~ error PH301
  }
  O[0 :+ 1, 0 :+ 32] = t
  O[1 :+ 1, 0 :+ 32] = f32(h)
}
