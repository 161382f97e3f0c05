// "the for bounds around it": a loop over uniform bounds keeps uniform control inside (tiled loop
// with a barrier each iteration).
// pins: control.enclosing everyone.rule-control
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32], n: i32) {
  var t: tile<f32>[1, 32] = 0.0
  for r in range(ctx.block.x, 8, n + 1) {
    t = A[r :+ 1, 0 :+ 32]
    t[0, ctx.lane] = t[0, ctx.lane] * 2.0
    barrier()
    O[r :+ 1, 0 :+ 32] = t
    barrier()
  }
}
