// store guard through a let in the loop
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, 4) {
    let last = r == 3
    let next = r + 1
    O[r :+ 1, 0 :+ 32] = t
    if last && next == 4 {
      t[0, ctx.lane] = A[r, ctx.lane]
    }
  }
}
