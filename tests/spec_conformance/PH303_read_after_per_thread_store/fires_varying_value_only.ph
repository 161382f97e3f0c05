// "A buffer ... stored per thread, with a varying value, index or control": a uniform index with a
// per-thread value is a per-thread store (every thread races to write its own value there).
// pins: everyone.rule-barrier L9.4
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  t[0, 0] = A[0, ctx.thread]
  O[0 :+ 1, 0 :+ 32] = t     //~ error PH303
}
