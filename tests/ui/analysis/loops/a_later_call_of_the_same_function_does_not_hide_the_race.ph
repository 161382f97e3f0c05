// a later call of the same function does not hide the race
fn phase(t: tile<f32>[1, 32], A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  for j in range(0, 2) {
    if j == 0 {
      O[0 :+ 1, 0 :+ 32] = t              //~ error PH303
    }
    if j == 1 {
      t[0, ctx.lane] = A[0, ctx.lane]
    }
  }
}
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  for r in range(0, 4) {
    phase(t, A, O)
  }
  barrier()
  phase(t, A, O)
}
