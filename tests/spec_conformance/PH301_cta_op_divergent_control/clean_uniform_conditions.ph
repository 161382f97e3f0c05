// "The three kinds": literals, kernel parameters, ctx.block, the ctx counts and loads at uniform
// addresses are uniform, so conditions built from them keep the control uniform.
// pins: kinds.uniform control.enclosing everyone.rule-control
@launch(256)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32], C: tensor<i32>[8], n: i32) {
  if n > 2 {
    O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]
  }
  if ctx.block.x == 0 && ctx.blocks.y > 1 {
    barrier()
  }
  if C[ctx.block.x % 8] > 0 {
    O[1 :+ 1, 0 :+ 32] = A[1 :+ 1, 0 :+ 32]
  } else {
    O[2 :+ 1, 0 :+ 32] = A[2 :+ 1, 0 :+ 32]
  }
  while C[0] < n && ctx.threads > 32 {
    barrier()
  }
  for i in range(0, n, ctx.warps) {
    O[3 :+ 1, 0 :+ 32] = A[3 :+ 1, 0 :+ 32]
  }
}
