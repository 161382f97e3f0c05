// LANGUAGE §9.6 with the step among the bounds: in range(0, 8, 4) only r = 0, 4 run; a store at
// r == 4 (the last) meets no later read. A read only before r == 2 and a store only from r == 2 on
// never meet through the back edge either (i >= 2 > i' contradicts i < i').
// pins: L9.6b ex.loops
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 8, 4) {
    O[r :+ 1, 0 :+ 32] = t
    if r == 4 {
      t[0, ctx.lane] = 1.0
    }
  }
  barrier()
  for r in range(0, 8) {
    if r < 2 {
      O[r :+ 1, 0 :+ 32] = t
    }
    if r >= 2 {
      t[0, ctx.lane] = 2.0
    }
  }
}
