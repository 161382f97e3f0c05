// per-thread-values.md, "A per-thread store and a CTA-wide read", the version with the barrier:
// "With the barrier the kernel compiles". Expected: no errors.
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  barrier()
  O[0 :+ 1, 0 :+ 32] = t
}
