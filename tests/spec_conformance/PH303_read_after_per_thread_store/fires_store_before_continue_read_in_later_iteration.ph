// LANGUAGE §9.6: a carried path runs the store's iteration i and the read's i' > i, each branch in
// its own: the store and the `continue` run where i < 2 (i = 1), the read where i' >= 2 (i' = 2),
// and the barrier only in the last iteration (i' = 3), after the read.
// pins: L9.6-loops L9.6-conditions L9.6b
@launch(64)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(1, 4) {
    if i < 2 {
      t[0, ctx.lane] = 3.0
    }
    if i < 2 {
      continue
    }
    if i > 0 {
      O[1 :+ 1, 0 :+ 32] = t      //~ error PH303
    }
    if i == 4 - 1 {
      barrier()
    }
  }
}
