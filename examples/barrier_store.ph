// Loads a 32-element row into a shared tile, then every lane overwrites its own element with
// 1.0 and the tile is copied out as a whole. The barrier() makes every thread's store land before
// the CTA-wide copy reads the tile. From per-thread-values.md, "A per-thread store and a CTA-wide
// read", the version with the barrier (kernel renamed from `k`).
@launch(256)
kernel barrier_store(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  barrier()
  O[0 :+ 1, 0 :+ 32] = t
}
