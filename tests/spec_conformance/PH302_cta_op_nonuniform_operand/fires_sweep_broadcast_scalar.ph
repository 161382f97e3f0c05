// LANGUAGE §9.7: the scalar operands include "a scalar that an elementwise sweep broadcasts": a
// per-thread scale has no single value for the CTA's sweep.
// pins: L9.7a everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  let scale = A[0, ctx.lane]
  t = t * scale                           //~ error PH302 "takes `scale`, which differs between lanes"
  t = t + f32(ctx.warp)                   //~ error PH302 "differs between warps"
  O[0 :+ 1, 0 :+ 32] = t
}
