// LANGUAGE §9.4: a store is per-thread when its value is warp-uniform too (each warp writes its own
// lane collective's result into the same element); a run store uniform in value, indices and control
// is not, and needs no barrier.
// pins: L9.4 everyone.rule-barrier lane.lane-collective-result
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  store(u[0, 0 :+ 4], 1.0)
  O[0 :+ 1, 0 :+ 32] = u
  u[0, 1] = sum<over ctx.lane>(A[0, ctx.lane])
  O[0 :+ 1, 0 :+ 32] = u              //~ error PH303 "reads `u`"
}
