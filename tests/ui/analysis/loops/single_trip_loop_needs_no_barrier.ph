// single trip loop needs no barrier
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, 1) {
    O[r :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = A[r, ctx.lane]
  }
  barrier()
  for r in range(5, 6) {
    O[r :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = A[r, ctx.lane]
  }
  barrier()
  for r in range(0, 4, 4) {
    O[r :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = A[r, ctx.lane]
  }
  barrier()
  let s = ctx.block.x
  for r in range(s, s + 1) {
    O[0 :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = A[0, ctx.lane]
  }
}
