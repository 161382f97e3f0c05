// LANGUAGE §9.6: paths follow loops "through their back edges"; z3 only examines `for` loops, so a
// while loop's carried path always stays.
// pins: L9.6a ex.loops everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var i = 0
  while i < n {
    O[0 :+ 1, 0 :+ 32] = t      //~ error PH303
    t[0, ctx.lane] = f32(i)
    i += 1
  }
}
