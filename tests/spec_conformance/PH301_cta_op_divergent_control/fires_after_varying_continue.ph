// "Control": a continue under varying control makes the rest of the iteration varying (LANGUAGE
// §9.3: the statements after it, to the end of the body).
// pins: control.early-exit L9.3b everyone.rule-control
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  for r in range(0, 8) {
    if ctx.lane == r {
      continue
    }
    O[r :+ 1, 0 :+ 32] = A[r :+ 1, 0 :+ 32]   //~ error PH301
  }
}
