// LANGUAGE §9.6: z3 is told "the conditions of the `break`, `continue` and `return` that the path goes
// past or through (a store after `if i < 3 { continue }` runs only where i >= 3)", and `let` bindings
// as equalities. The store runs only in the last iteration, so no later iteration reads it.
// pins: L9.6-conditions L9.6-constants L9.6-examples L9.6b
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[2, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(0, 4) {
    O[0 :+ 1, 0 :+ 32] = t
    if i < 3 {
      continue
    }
    t[0, ctx.lane] = 1.0
  }
  barrier()
  let last = n - 1
  for i in range(0, n) {
    O[1 :+ 1, 0 :+ 32] = t
    if i < last {
      continue
    }
    t[0, ctx.lane] = 2.0
  }
}
