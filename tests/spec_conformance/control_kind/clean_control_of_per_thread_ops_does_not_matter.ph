// The control kind of a statement is computed everywhere, but only operations that need every lane or
// thread are constrained by it; deep per-thread nesting is fine ("What runs anywhere").
// pins: anywhere.ops control.enclosing
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var x = A[0, ctx.thread]
  if ctx.lane % 2 == 0 {
    while x > 1.0 {
      for i in range(ctx.lane, 40) {
        if x > f32(i) {
          x = x * 0.5
        }
      }
    }
  } else {
    x = -x
  }
  O[0, ctx.thread] = x
}
