// LANGUAGE §11, `stage`: "Per-thread stores into a shared tile, a barrier, then a CTA-wide copy out
// of it." Each thread stores its own element of a shared tile.
// pins: ex.own-elements ex.with-barrier
@launch(128)
kernel stage(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var t: tile<f32>[1, 128] = 0.0
  t[0, ctx.thread] = A[0, ctx.thread] * 2.0
  barrier()
  O[0 :+ 1, 0 :+ 128] = t
}
