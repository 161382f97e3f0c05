// LANGUAGE §9.6: a barrier between the read and the store in the loop body does not cut the carried
// path store -> back edge -> read; the barrier must lie between the store and the read.
// pins: L9.6a ex.loops everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 4) {
    O[r :+ 1, 0 :+ 32] = t      //~ error PH303
    barrier()
    t[0, ctx.lane] = f32(r)
  }
}
