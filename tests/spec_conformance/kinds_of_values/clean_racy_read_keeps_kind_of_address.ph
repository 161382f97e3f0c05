// LANGUAGE §9.8: a scalar read out of a tile has the kind of its address, "sound only for race-free
// programs: a thread reading what another thread stored without a barrier may see either value (the
// page says the compiler does not check it; the simulator does)". NOT CHECKED BY DESIGN: t[0, 0] is
// uniform here although lane 0's store races with the other threads' reads.
// pins: L9.8 ex.other-thread-unchecked
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = A[0, (ctx.lane + 5) % 32]
  let first = t[0, 0]                  //~ kind first uniform
  if first > 0.0 {
    O[0, ctx.lane] = first
  }
}
