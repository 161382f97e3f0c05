// "The three kinds": "a load at a varying address" is varying; used as a slice offset it is rejected.
// pins: kinds.varying everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 64], C: tensor<i32>[128], O: tensor<f32>[1, 64]) {
  let start = C[ctx.thread]          //~ kind start varying
  O[0 :+ 1, 0 :+ 8] = A[0 :+ 1, start :+ 8]     //~ error PH302
}
