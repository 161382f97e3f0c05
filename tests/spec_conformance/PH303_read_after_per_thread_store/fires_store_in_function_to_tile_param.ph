// LANGUAGE §2 and §9.5: a tile passed to a function is the caller's shared memory; a per-thread store
// through the parameter must be followed by barrier() before the caller copies the tile out.
// pins: L9.5 everyone.rule-barrier
fn mark(T: tile<f32>[1, 32]) {
  T[0, ctx.lane] = 1.0
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  mark(t)
  O[0 :+ 1, 0 :+ 32] = t       //~ error PH303
  barrier()
  mark(t)
  barrier()
  O[0 :+ 1, 0 :+ 32] = t
}
