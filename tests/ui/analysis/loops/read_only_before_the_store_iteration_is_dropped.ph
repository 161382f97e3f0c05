// read only before the store iteration is dropped
// the read at r == 0 never comes after the store at r == 3
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, 4) {
    if r == 0 {
      O[r :+ 1, 0 :+ 32] = t
    }
    if r == 3 {
      t[0, ctx.lane] = A[r, ctx.lane]
    }
  }
}
