// LANGUAGE §9.5: "the operands of the tile built-ins" are read: dot's right operand and qdot_t's
// scales, each stored per thread just before.
// pins: L9.5 everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[16, 16], X: tensor<i8>[8, 32], SX: tensor<f32>[8, 1], O: tensor<f32>[16, 16]) {
  var a: tile<f32>[16, 16] = A[0 :+ 16, 0 :+ 16]
  var b: tile<f32>[16, 16] = 0.0
  b[ctx.lane % 16, ctx.warp] = 1.0
  var c: tile<f32>[16, 16] = dot(a, b)        //~ error PH303 "`dot` reads `b`"
  O[0 :+ 16, 0 :+ 16] = c
  var q: tile<i8>[8, 32] = X[0 :+ 8, 0 :+ 32]
  var s: tile<f32>[8, 1] = SX[0 :+ 8, 0 :+ 1]
  s[ctx.lane % 8, 0] = 0.5
  var o: tile<f32>[8, 8] = qdot_t(q, s, q, s)  //~ error PH303 "`qdot_t` reads `s`"
  O[0 :+ 8, 0 :+ 8] = o
}
