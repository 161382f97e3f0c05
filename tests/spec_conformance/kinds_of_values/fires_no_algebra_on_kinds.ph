// "An expression is as varying as its most varying operand", even when the value is the same in every
// thread: ctx.lane * 0 as a slice offset is rejected.
// pins: kinds.expression everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  let z = ctx.lane * 0
  O[0 :+ 1, z :+ 8] = A[0 :+ 1, 0 :+ 8]      //~ error PH302
}
