// LANGUAGE §7: a slice inside a run context (sum, elem, store) is a run, "one thread's own short
// vector", which runs anywhere: its offset may be per-thread.
// pins: ex.own-accesses anywhere.ops
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  let s = sum(A[0, ctx.lane * 4 :+ 4])
  let r = elem(A[0, ctx.lane * 4 :+ 4] * 2.0)
  store(O[0, ctx.lane * 4 :+ 4], r + s)
}
