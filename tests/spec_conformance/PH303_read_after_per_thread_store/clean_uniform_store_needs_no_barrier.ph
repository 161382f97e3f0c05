// LANGUAGE §9.4: "A store uniform in all three writes the same element with the same value in every
// thread and needs no barrier."
// pins: L9.4 everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, 0] = 1.0
  t[0, n % 32] = A[0, 3]
  if n > 1 {
    t[0, 1] = f32(ctx.block.x)
  }
  O[0 :+ 1, 0 :+ 32] = t
}
