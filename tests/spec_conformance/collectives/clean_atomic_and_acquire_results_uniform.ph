// LANGUAGE §8: "an atomic's or acquire load's result is uniform" (one thread performs it and the
// result reaches every thread), whatever their operands.
// pins: L8.atomic-result
@launch(128)
kernel k(A: tensor<f32>[1, 256], C: tensor<i32>[8], F: tensor<f32>[8], O: tensor<f32>[1, 256], n: i32) {
  let a = atomic_add(C[0], 1)          //~ kind a uniform
  let b = atomic_max(C[1], n)          //~ kind b uniform
  let c = atomic_min(C[2], 4)          //~ kind c uniform
  let d = atomic_cas(C[3], a, b)       //~ kind d uniform
  let e = atomic_add(F[0], 0.5)        //~ kind e uniform
  let f = load_acquire(C[4])           //~ kind f uniform
  O[0 :+ 1, (a + b + c + d + f) % 128 :+ 8] = A[0 :+ 1, 0 :+ 8] * e
}
