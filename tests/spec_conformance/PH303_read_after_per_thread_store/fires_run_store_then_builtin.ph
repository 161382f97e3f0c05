// A run store `store(t[i, j :+ n], e)` is a per-thread store too (LANGUAGE §9.4: "a scalar store or a
// store(..)"); a tile built-in reads its operands (§9.5).
// pins: L9.4 L9.5 everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 1]) {
  var t: tile<f32>[4, 32] = 0.0
  store(t[ctx.warp, (ctx.lane % 8) * 4 :+ 4], A[ctx.warp, (ctx.lane % 8) * 4 :+ 4])
  var r: tile<f32>[4, 1] = rowsum(t)    //~ error PH303 "`rowsum` reads `t`"
  O[0 :+ 4, 0 :+ 1] = r
}
