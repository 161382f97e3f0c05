// LANGUAGE §9.7: "For a warp-uniform operand the message says "differs between warps" instead of the
// page's "differs between lanes"." A copy into a slice at a warp-uniform row.
// pins: L9.7c everyone.rule-operands
@launch(256)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  let row = ctx.warp
  O[row :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]   //~ error PH302 "takes `row`, which differs between warps"
}
