// LANGUAGE §9.6: "or a loop that runs at most once": range(0, 1) has no i < i' in its bounds.
// pins: L9.6b ex.loops
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 1) {
    O[0 :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = 1.0
  }
  barrier()
  O[0 :+ 1, 0 :+ 32] = t
}
