// LANGUAGE §9.8: a scalar read out of a tile "has the kind of its address": at ctx.lane it is varying,
// so a condition on it puts a barrier under per-thread control.
// pins: L9.8 everyone.rule-control
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if t[0, ctx.lane] > 0.0 {
    barrier()                    //~ error PH301
  }
  O[0 :+ 1, 0 :+ 32] = t
}
