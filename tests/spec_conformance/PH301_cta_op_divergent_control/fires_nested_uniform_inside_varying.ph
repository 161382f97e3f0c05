// "Control": the control is the join of every enclosing condition, so a uniform `if` nested in a
// varying one is still varying control; a uniform for loop inside it too.
// pins: control.enclosing L9.3 L9.9
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if ctx.thread == 5 {
    if n > 0 {
      for i in range(0, n) {
        t = exp(t)         //~ error PH301
      }
    }
  }
  O[0 :+ 1, 0 :+ 32] = t
}
