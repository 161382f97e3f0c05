// LANGUAGE §9.6: a carried path is dropped when z3 proves that no i < i' have the store's guard at i
// and the read's at i', "for example a store only in the last iteration" (a runtime bound n too).
// pins: L9.6b ex.loops
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 8) {
    O[r :+ 1, 0 :+ 32] = t
    if r == 7 {
      t[0, ctx.lane] = 1.0
    }
  }
  barrier()
  for r in range(0, n) {
    O[1 :+ 1, 0 :+ 32] = t
    if r == n - 1 {
      t[0, ctx.lane] = 2.0
    }
  }
}
