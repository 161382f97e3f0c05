// guards inside an inlined function use its loop variable
// the unrolled equivalent: a `let` copy of the loop variable, checked by z3 correctly
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  for r in range(0, 4) {
    let i = r
    if i == 1 {
      O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
    }
    if i == 0 {
      t[0, ctx.lane] = A[0, ctx.lane]
    }
  }
}
