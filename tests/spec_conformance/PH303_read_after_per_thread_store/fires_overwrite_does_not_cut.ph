// LANGUAGE §9.6: "Only barrier() cuts a path": overwriting the whole tile with a copy between the
// per-thread store and the read does not synchronize it.
// pins: L9.6a everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  t = A[0 :+ 1, 0 :+ 32]
  O[0 :+ 1, 0 :+ 32] = t       //~ error PH303
}
