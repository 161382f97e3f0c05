// LANGUAGE §9.6: "for example ... a barrier skipped only in the first iteration, before anything was
// stored". The read in iteration i' follows the store of an earlier iteration i < i' only when
// i' > 0, and then the barrier runs first; z3 is told the branch the path takes (`i > 0` false) and
// the iterations' order (i < i'), which contradict.
// pins: L9.6-examples L9.6-conditions L9.6-loops L9.6b
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(0, n) {
    if i > 0 {
      barrier()
    }
    O[0 :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = 1.0
  }
}
