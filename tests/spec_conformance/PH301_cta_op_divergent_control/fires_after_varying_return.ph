// "Control": "A ... return under varying control makes the rest of its ... kernel varying too,
// because some threads have left and others have not."
// pins: control.early-exit L9.3c everyone.rule-control
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  if ctx.thread >= n {
    return
  }
  O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]     //~ error PH301
  if n > 3 {
    barrier()                                  //~ error PH301
  }
}
