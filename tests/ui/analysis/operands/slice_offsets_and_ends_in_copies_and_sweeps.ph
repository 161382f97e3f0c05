// LANGUAGE §9.7: slice offsets and ends in copies and sweeps
// line 6: one PH302 for the offset (`ctx.lane`), one for the end (`ctx.lane + 4`)
@launch(256)
kernel k(A: tensor<f32>[32, 64], O: tensor<f32>[32, 64]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  O[0 :+ 1, ctx.lane :+ 1] = t[0 :+ 1, 0 :+ 1]      //~ error PH302 "`slice` takes `ctx.lane`"
  t = A[ctx.warp :+ 1, 0 :+ 32] * 2.0               //~ error PH302 "which differs between warps"
  let e = A[0, ctx.lane : ctx.lane + 4]             //~ error PH302 "which differs between lanes" PH302
}
