// Copies a 32-element row into a shared tile, doubles it and writes it out. A per-lane branch
// sets a scalar on the way, but it has closed before the tile sweep, so the sweep runs under
// uniform control again. From per-thread-values.md, "A per-thread branch that has closed"
// (kernel renamed from `k`).
@launch(256)
kernel closed_branch(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var x = 0   // phobos-allow: PH501 -- the page's kernel, kept as written: `x` is never read
  if ctx.lane == 3 {
    x = 1
  }
  t = t * 2.0
  O[0 :+ 1, 0 :+ 32] = t
}
