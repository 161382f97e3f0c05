// LANGUAGE §9.2: the step is one of the bounds: a varying step makes the variable varying, so a sweep
// broadcasting it is rejected (outside the loop, from a var that carried it out).
// pins: kinds.loop-variable L9.2b kinds.var
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var last = 0                                  //~ kind last varying
  for i in range(0, 64, ctx.lane + 1) {         //~ kind i varying
    last = i
  }
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t = t * f32(last)                             //~ error PH302
  O[0 :+ 1, 0 :+ 32] = t
}
