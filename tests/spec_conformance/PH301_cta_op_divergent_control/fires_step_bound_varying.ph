// "Control": the loop's bounds are lo, hi and step (LANGUAGE §5); a varying step alone makes the
// body's control varying.
// pins: control.enclosing L9.3
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  for i in range(0, 64, ctx.lane + 1) {
    O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]   //~ error PH301
  }
}
