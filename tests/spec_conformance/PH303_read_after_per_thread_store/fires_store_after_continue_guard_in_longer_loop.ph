// LANGUAGE §9.6: after `if i < 3 { continue }` the store runs where i >= 3; with a runtime bound an
// iteration i' > i >= 3 may still come, and its read follows the store through the back edge.
// pins: L9.6-conditions L9.6b ex.loops
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(0, n) {
    O[0 :+ 1, 0 :+ 32] = t        //~ error PH303
    if i < 3 {
      continue
    }
    t[0, ctx.lane] = 1.0
  }
}
