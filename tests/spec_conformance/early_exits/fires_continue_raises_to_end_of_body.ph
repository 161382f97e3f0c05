// LANGUAGE §9.3: a continue raises "the statements after it in the same iteration of its loop body,
// to the end of the body", nested blocks after it included.
// pins: L9.3b control.early-exit
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32], n: i32) {
  for r in range(0, 4) {
    if n > 0 {
      if ctx.lane == r {
        continue
      }
      barrier()                              //~ error PH301
    }
    O[r :+ 1, 0 :+ 32] = A[r :+ 1, 0 :+ 32]   //~ error PH301
  }
}
