// per-thread-values.md, "A tile operation under per-thread control": "A per-thread branch that has
// closed is no problem. The control after it is uniform again" (the page's kernel).
// pins: ex.closed-branch control.enclosing
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var x = 0                //~ kind x varying
  if ctx.lane == 3 {
    x = 1
  }
  t = t * 2.0
  O[0 :+ 1, 0 :+ 32] = t
}
