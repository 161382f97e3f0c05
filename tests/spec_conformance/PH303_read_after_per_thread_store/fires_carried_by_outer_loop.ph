// LANGUAGE §9.6: a store in an inner loop reaches the read at the top of the outer loop's next
// iteration through the outer back edge (paths "following loops through their back edges").
// pins: L9.6a ex.loops everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 4) {
    O[r :+ 1, 0 :+ 32] = t      //~ error PH303
    for c in range(0, 4) {
      t[0, ctx.lane] = f32(c)
    }
  }
}
