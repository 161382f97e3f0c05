// Doubles a row of 128 values by staging it in shared memory: each thread stores its own
// element, scaled, into a shared tile, and after a barrier the CTA copies the tile out in one
// piece. From LANGUAGE §11, unchanged.

// Per-thread stores into a shared tile, a barrier, then a CTA-wide copy out of it.
@launch(128)
kernel stage(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var t: tile<f32>[1, 128] = 0.0
  t[0, ctx.thread] = A[0, ctx.thread] * 2.0
  barrier()
  O[0 :+ 1, 0 :+ 128] = t
}
