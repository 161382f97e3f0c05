// "The check follows loops: a store in one iteration and a tile read at the top of the next also
// need a barrier between them." (LANGUAGE §9.6: r < r' both in range(0, 4).)
// pins: ex.loops L9.6a everyone.rule-barrier
@launch(32)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  for r in range(0, 4) {
    O[r :+ 1, 0 :+ 32] = t          //~ error PH303
    t[0, ctx.lane] = A[r, ctx.lane]
  }
}
