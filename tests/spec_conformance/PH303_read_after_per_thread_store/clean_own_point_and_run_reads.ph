// "A thread's own point and run accesses (t[i, j], elem, sum, store) are not checked ... A thread
// reading back what it stored itself needs no barrier."
// pins: ex.own-accesses ex.read-back-own
@launch(32)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var t: tile<f32>[1, 128] = 0.0
  t[0, ctx.lane] = A[0, ctx.lane] + 1.0
  let mine = t[0, ctx.lane]
  store(t[0, 32 + ctx.lane * 2 :+ 2], mine)
  let pair = sum(t[0, 32 + ctx.lane * 2 :+ 2])
  let again = elem(t[0, 32 + ctx.lane * 2 :+ 2])
  O[0, ctx.lane] = pair + again[0]
}
