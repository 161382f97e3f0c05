// "Each thread may store its own elements into a shared tile": per-thread stores alone are fine, with
// no barrier, as long as no CTA-wide operation reads the buffer.
// pins: ex.own-elements anywhere.ops
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var t: tile<f32>[1, 128] = 0.0
  if ctx.lane < 30 {
    t[0, ctx.thread] = A[0, ctx.thread]
  }
  O[0, ctx.thread] = t[0, ctx.thread] + 1.0
}
