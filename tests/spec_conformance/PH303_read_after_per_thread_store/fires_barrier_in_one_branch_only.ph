// LANGUAGE §9.6: "The barrier rule is a path property": the path through the branch without a
// barrier() still runs from the store to the read.
// pins: L9.6a everyone.rule-barrier
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  if n > 0 {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t       //~ error PH303
}
