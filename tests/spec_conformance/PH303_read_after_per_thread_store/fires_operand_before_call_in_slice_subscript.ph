// LANGUAGE §6: "a binary operator evaluates its left operand completely (every call and operation
// in it) before its right", and "a subscript evaluates its indices before the access". In
// `rowsum(t) + A[sync() :+ 32, ..]` the `rowsum` reads `t` before the barrier in the right
// operand's slice offset runs, so it reads the per-thread stores unordered. A tile's name on the
// left is read by the sweep itself, after both operands: that one is ordered by the barrier.
// pins: L6.binary L6.call L9.6-grain L9.5
fn sync() -> i32 {
  barrier()
  return 0
}

@launch(64)
kernel k(A: tensor<f32>[32, 32], R: tensor<f32>[32, 1], O: tensor<f32>[32, 32]) {
  var t: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
  t[ctx.lane, 0] = 1.0
  R[0 :+ 32, 0 :+ 1] = rowsum(t) + A[sync() :+ 32, 0 :+ 1]    //~ error PH303
  t[ctx.lane, 0] = 2.0
  O[0 :+ 32, 0 :+ 32] = t * A[sync() :+ 32, 0 :+ 32]
}
