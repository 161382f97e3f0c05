// per-thread-values.md, "A tile operation under per-thread control": rejected. Only lane 0 of
// each warp would reach the sweep `t = t * 2.0`, and with it the barrier the sweep needs; the page
// says "the operation runs once per CTA, so every thread must reach it".
// Expected: PH301 on the sweep ("`elementwise sweep` runs once per CTA, so every thread must
// reach it"), its chain pointing at `ctx.lane == 0`.
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if ctx.lane == 0 {
    t = t * 2.0            //~ error PH301 "`elementwise sweep` runs once per CTA, so every thread must reach it"
  }
  O[0 :+ 1, 0 :+ 32] = t
}
