// per-thread-values.md, "A tile operation under per-thread control": "The same holds for
// warp-uniform control: if ctx.warp == 0 { t = t * 2.0 } is rejected as well, because the other
// warps never arrive." The page's kernel with that condition in place of `ctx.lane == 0`.
// Expected: PH301 on the sweep, the chain saying that `ctx.warp` differs between warps.
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if ctx.warp == 0 {
    t = t * 2.0            //~ error PH301 "`elementwise sweep` runs once per CTA, so every thread must reach it"
  }
  O[0 :+ 1, 0 :+ 32] = t
}
