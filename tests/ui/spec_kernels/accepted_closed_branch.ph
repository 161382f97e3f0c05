// per-thread-values.md, "A per-thread branch that has closed is no problem": accepted. The
// branch on ctx.lane has closed before the sweep, so the control there is uniform again.
// Expected: no errors.
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var x = 0
  if ctx.lane == 3 {
    x = 1
  }
  t = t * 2.0
  O[0 :+ 1, 0 :+ 32] = t
}
