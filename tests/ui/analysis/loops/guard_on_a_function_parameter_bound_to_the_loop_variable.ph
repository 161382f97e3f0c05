// guard on a function parameter bound to the loop variable
fn step(i: i32, t: tile<f32>[1, 32], A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  if i == 1 {
    O[0 :+ 1, 0 :+ 32] = t            //~ error PH303
  }
  if i == 0 {
    t[0, ctx.lane] = A[0, ctx.lane]
  }
}
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  for r in range(0, 4) {
    step(r, t, A, O)
  }
}
