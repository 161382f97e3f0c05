// LANGUAGE §9.3: "after the loop, control is as it was before the loop": a varying break raises
// its loop only.
// pins: L9.3a control.early-exit
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var found = -1
  for r in range(0, 8) {
    if A[r, ctx.lane] > 0.0 {
      found = r
      break
    }
  }
  barrier()
  O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]
  O[1, ctx.lane] = f32(found)
}
