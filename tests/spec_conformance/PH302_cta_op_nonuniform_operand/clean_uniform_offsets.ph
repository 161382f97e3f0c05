// "Their scalar operands are uniform, including slice offsets": offsets from ctx.block, parameters,
// the ctx counts, loop variables over uniform bounds and uniform loads are all uniform.
// pins: everyone.rule-operands kinds.uniform kinds.loop-variable
@launch(256)
kernel k(A: tensor<f32>[64, 64], O: tensor<f32>[64, 64], C: tensor<i32>[4], n: i32) {
  let row = ctx.block.x * 4 + n            //~ kind row uniform
  O[row :+ 1, 0 :+ 32] = A[row :+ 1, 0 :+ 32]
  for r in range(0, 4) {
    O[r :+ 1, C[0] :+ 8] = A[r :+ 1, ctx.warps :+ 8]
  }
  let v = A[C[1], 0 :+ 16]
  O[n :+ 1, 0 :+ 16] = v
}
