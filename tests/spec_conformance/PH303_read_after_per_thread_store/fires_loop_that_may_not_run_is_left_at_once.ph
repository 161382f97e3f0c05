// LANGUAGE §9.6: only bounds that prove a loop runs keep a path from leaving it before its first
// iteration: `range(0, n)` may run no iteration, and `range(0, 2)` runs but its barrier is skipped
// where `m <= 0`, the store's guard says nothing about it.
// pins: L9.6-loops L9.6b
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[8, 32], m: i32, n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if m > 0 {
    t[0, ctx.lane] = 1.0
  }
  for j in range(0, n) {
    if m > 0 {
      barrier()
    }
  }
  O[0 :+ 1, 0 :+ 32] = t         //~ error PH303
  t[0, ctx.lane] = 2.0
  for j in range(0, 2) {
    if m > 0 {
      barrier()
    }
  }
  O[1 :+ 1, 0 :+ 32] = t         //~ error PH303
}
