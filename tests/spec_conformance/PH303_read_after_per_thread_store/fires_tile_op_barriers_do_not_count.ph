// LANGUAGE §9.6: "Only barrier() cuts a path (the barriers the lowering places inside tile
// operations do not)": a sweep of another tile between the store and the read does not synchronize.
// pins: L9.6a everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[2, 32], O: tensor<f32>[2, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var u: tile<f32>[1, 32] = A[1 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  u = u * 2.0
  O[1 :+ 1, 0 :+ 32] = u
  O[0 :+ 1, 0 :+ 32] = t       //~ error PH303
}
