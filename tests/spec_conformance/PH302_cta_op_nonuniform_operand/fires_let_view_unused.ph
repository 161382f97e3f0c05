// LANGUAGE §9.7: "A slice's offsets are checked where the slice is written, a let view included:
// let v = A[0, ctx.lane :+ 4] is rejected there, whether or not v is used."
// pins: L9.7b everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  let v = A[0, ctx.lane :+ 4]     //~ error PH302 "`slice` takes `ctx.lane`"
  O[0, ctx.lane] = A[0, ctx.lane]
}
