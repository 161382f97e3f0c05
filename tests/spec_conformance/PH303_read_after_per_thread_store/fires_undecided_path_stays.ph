// LANGUAGE §9.6: "z3 runs under a fixed resource limit (`rlimit`), not a wall-clock timeout, so
// verdicts do not depend on machine load; undecided means the path stays, and the diagnostic says so
// in a note". Whether a^3 + b^3 = c^3 has a solution in range is beyond z3's limit.
// pins: L9.6c L9.6b
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], a: i32, b: i32, c: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  if a > 0 && b > 0 && c > 0 && a < 1000 && b < 1000 && c < 1000 && a * a * a + b * b * b == c * c * c {
    O[0 :+ 1, 0 :+ 32] = t        //~ error PH303
  }
}
