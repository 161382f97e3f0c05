// "Control": an `else if` runs under the first condition too. The first condition is uniform,
// the second varying, so only the second branch is under per-thread control.
// pins: control.enclosing L9.3
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  if n > 4 {
    O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]
  } else if ctx.lane == n {
    O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]   //~ error PH301
  } else {
    barrier()                                  //~ error PH301
  }
}
