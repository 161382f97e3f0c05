// LANGUAGE §9.7: slice operands of a sweep are checked where written: a slice at a per-thread
// offset inside an elementwise expression is not a tile either.
// pins: L9.7a everyone.rule-operands ex.slice-offset
@launch(128)
kernel k(A: tensor<f32>[2, 64], O: tensor<f32>[2, 64]) {
  var t: tile<f32>[1, 8] = A[0 :+ 1, 0 :+ 8]
  t = t + A[1 :+ 1, ctx.lane :+ 8]       //~ error PH302
  O[0 :+ 1, 0 :+ 8] = t
}
