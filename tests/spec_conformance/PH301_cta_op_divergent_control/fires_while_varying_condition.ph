// "Control": a while condition that differs between lanes makes the body's control varying.
// pins: control.enclosing everyone.rule-control
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var i = ctx.lane
  while i < 32 {
    O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]   //~ error PH301
    i += 8
  }
}
