// "A thread reading back what it stored itself needs no barrier": each thread updates its own two
// elements of a shared tile across iterations with point and run accesses only; one barrier before
// the CTA-wide copy.
// pins: ex.read-back-own ex.own-accesses ex.with-barrier
@launch(128)
kernel k(A: tensor<f32>[8, 256], O: tensor<f32>[1, 256]) {
  var t: tile<f32>[1, 256] = 0.0
  for r in range(0, 8) {
    t[0, ctx.thread * 2] = t[0, ctx.thread * 2] + A[r, ctx.thread * 2]
    store(t[0, ctx.thread * 2 :+ 2], elem(t[0, ctx.thread * 2 :+ 2]) * 0.5)
  }
  barrier()
  O[0 :+ 1, 0 :+ 256] = t
}
