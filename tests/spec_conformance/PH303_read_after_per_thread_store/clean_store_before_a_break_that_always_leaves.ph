// LANGUAGE §9.6: z3 is told "the conditions of the `break`, `continue` and `return` that the path
// goes past or through". After the store every iteration leaves through the `break` (`i >= 0` holds
// for every iteration of `range(0, n)`), so no later iteration reads what it stored.
// pins: L9.6-conditions L9.6-loops L9.6b
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(0, n) {
    O[0 :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = 1.0
    if i >= 0 {
      break
    }
  }
}
