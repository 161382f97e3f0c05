// LANGUAGE §9.6: z3 is told `i = lo + n * step`, whatever form the constant step is written in
// (`i64(1000000000)`, a `let`): `i` is 0, 10^9 and 2 * 10^9, so the store runs in the last iteration.
// pins: L9.6-loops L9.6b ex.loops
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(i64(0), i64(3000000000), i64(1000000000)) {
    O[0 :+ 1, 0 :+ 32] = t
    if i == i64(2000000000) {
      t[0, ctx.lane] = 1.0
    }
  }
  barrier()
  let s = 3
  for i in range(1, 10, s) {
    O[1 :+ 1, 0 :+ 32] = t
    if i == 7 {
      t[0, ctx.lane] = 1.0
    }
  }
}
