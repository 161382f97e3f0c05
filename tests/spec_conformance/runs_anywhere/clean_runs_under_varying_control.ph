// LANGUAGE §8: "runs (sum(e), elem, store)" are per-thread operations, allowed under any control and
// with any offsets.
// pins: anywhere.ops ex.own-accesses L8.per-thread
@launch(128)
kernel k(A: tensor<f32>[1, 1024], O: tensor<f32>[1, 1024]) {
  if ctx.lane > 4 {
    let s = sum(A[0, ctx.thread * 4 :+ 4])
    let r = elem(A[0, ctx.thread * 4 :+ 4] * s)
    store(O[0, ctx.thread * 4 :+ 4], r)
  }
}
