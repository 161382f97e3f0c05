// "As varying as its operands": shfl<idx 0>(ctx.lane) is the same in every lane at run time, but its
// operand is varying, so the result is varying and rejected as a slice offset.
// pins: lane.shuffle-result everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  let first = shfl<idx 0>(ctx.lane)
  O[0 :+ 1, first :+ 8] = A[0 :+ 1, 0 :+ 8]      //~ error PH302
}
