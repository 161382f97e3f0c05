// guard calling a function is not dropped
fn is_first(i: i32) -> bool {
  return i == 0
}
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  for r in range(0, 4) {
    if r == 1 {
      O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
    }
    if is_first(r) {
      t[0, ctx.lane] = A[0, ctx.lane]
    }
  }
}
