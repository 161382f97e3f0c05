// LANGUAGE §9.6: "a loop whose bounds prove it runs at least once cannot be left before its first
// iteration", also where some iteration may skip its barrier: the store runs only where `m > 0`,
// and then the first iteration of each loop below (which runs: `0 < 2`) waits at the barrier.
// pins: L9.6-loops L9.6b L9.6-examples
@launch(128)
kernel k(A: tensor<f32>[1, 32], B: tensor<i32>[1, 32], O: tensor<f32>[8, 32], m: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if m > 0 {
    t[0, ctx.lane] = 1.0
  }
  for j in range(0, 2) {
    if m > 0 {
      barrier()
    }
  }
  O[0 :+ 1, 0 :+ 32] = t
  for i in range(0, 4) {
    let v = B[0, i]
    if v > 0 {
      t[0, ctx.lane] = 2.0
    }
    for j in range(0, 2) {
      if v > 0 {
        barrier()
      }
    }
    O[1 :+ 1, 0 :+ 32] = t
  }
}
