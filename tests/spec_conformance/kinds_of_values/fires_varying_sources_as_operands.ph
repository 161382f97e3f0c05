// "The three kinds": ctx.thread, ctx.lane and a load at a varying address are varying, so each is
// rejected as an operand of a CTA-wide operation (and ctx.warp with "between warps").
// pins: kinds.varying kinds.warp-uniform everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[8, 256], C: tensor<i32>[128], O: tensor<f32>[8, 256]) {
  O[0 :+ 1, ctx.thread :+ 1] = A[0 :+ 1, 0 :+ 1]      //~ error PH302 "differs between lanes"
  O[1 :+ 1, ctx.lane :+ 1] = A[0 :+ 1, 0 :+ 1]        //~ error PH302 "differs between lanes"
  O[2 :+ 1, C[ctx.lane] :+ 1] = A[0 :+ 1, 0 :+ 1]     //~ error PH302 "differs between lanes"
  O[ctx.warp :+ 1, 0 :+ 1] = A[0 :+ 1, 0 :+ 1]        //~ error PH302 "differs between warps"
}
