// LANGUAGE §9.2 vs §9.3: after a varying break the loop variable keeps the kind of its bounds
// (uniform, so no PH302), but the copy in the loop is under varying control (PH301).
// pins: L9.2b L9.3a kinds.loop-variable
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  for i in range(0, 8) {                        //~ kind i uniform
    O[i :+ 1, 0 :+ 32] = A[i :+ 1, 0 :+ 32]     //~ error PH301
    if A[i, ctx.lane] < 0.0 {
      break
    }
  }
}
