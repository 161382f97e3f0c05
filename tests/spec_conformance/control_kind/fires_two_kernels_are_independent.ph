// The analysis runs per kernel: the first kernel's per-thread branch and store say nothing about the
// second, which uses the same names under uniform control.
// pins: control.enclosing intro.inferred
@launch(128)
kernel first(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var x = 0                                //~ kind x varying
  if ctx.lane == 0 {
    x = 1
    barrier()                              //~ error PH301
  }
  O[0, ctx.lane] = f32(x)
}

@launch(128)
kernel second(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var x = 0                                //~ kind x uniform
  if ctx.block.x == 0 {
    x = 1
    barrier()
  }
  O[0 :+ 1, x :+ 8] = A[0 :+ 1, 0 :+ 8]
}
