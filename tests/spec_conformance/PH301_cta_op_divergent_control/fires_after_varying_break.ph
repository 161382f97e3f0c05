// "Control": "A break ... under varying control makes the rest of its loop ... varying too". LANGUAGE
// §9.3: it raises every statement of its loop, those before it included (later iterations run
// without the threads that left).
// pins: control.early-exit L9.3a everyone.rule-control
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  for r in range(0, 8) {
    O[r :+ 1, 0 :+ 32] = A[r :+ 1, 0 :+ 32]   //~ error PH301
    if A[r, ctx.lane] > 0.0 {
      break
    }
    barrier()                                  //~ error PH301
  }
}
