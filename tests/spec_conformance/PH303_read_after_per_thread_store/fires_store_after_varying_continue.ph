// LANGUAGE §9.4 with §9.3: a store after a varying continue runs under varying control (some threads
// skipped it), so it is a per-thread store though its element and value are uniform; the copy after
// the loop, at uniform control again, reads it with no barrier between.
// pins: L9.4 L9.3b everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 4) {
    if ctx.lane == r {
      continue
    }
    t[0, 0] = 1.0
  }
  O[0 :+ 1, 0 :+ 32] = t       //~ error PH303
}
