// LANGUAGE §9.6: a `var` is "a fresh unknown of its type at each occurrence". The store runs only in
// the last iteration, but its guard compares with a var, so z3 cannot prove the carried path
// infeasible and the read is reported.
// pins: L9.6-constants L9.6b everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var last = 7
  for r in range(0, 8) {
    O[r :+ 1, 0 :+ 32] = t      //~ error PH303
    if r == last {
      t[0, ctx.lane] = 1.0
    }
  }
}
