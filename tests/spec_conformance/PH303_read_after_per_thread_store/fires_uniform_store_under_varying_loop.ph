// "stored per thread, with a varying value, index or control": a constant element and value stored in a
// loop whose bounds differ between lanes is a per-thread store by its control alone.
// pins: everyone.rule-barrier L9.4
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(ctx.lane, 4) {
    t[0, 0] = 1.0
  }
  O[0 :+ 1, 0 :+ 32] = t       //~ error PH303
}
