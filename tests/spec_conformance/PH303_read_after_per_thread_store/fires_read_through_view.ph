// LANGUAGE §9.5: "A view reads the buffer it was sliced from": a copy out of a view of t after a
// per-thread store to t (the diagnostic names the view and notes the buffer behind it).
// pins: L9.5 everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[2, 32], O: tensor<f32>[2, 32]) {
  var t: tile<f32>[2, 32] = A[0 :+ 2, 0 :+ 32]
  let top = t[0 :+ 1, 0 :+ 16]
  t[1, ctx.lane] = 5.0
  O[0 :+ 1, 0 :+ 16] = top     //~ error PH303 "reads `top`"
}
