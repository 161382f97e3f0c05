// "A break, continue or return under varying control": under uniform control every thread leaves
// together, so the rest of the kernel stays uniform.
// pins: control.early-exit L9.3c
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  if n == 0 {
    return
  }
  for r in range(0, 8) {
    if r == n {
      break
    }
    if r % 2 == 1 {
      continue
    }
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]
}
