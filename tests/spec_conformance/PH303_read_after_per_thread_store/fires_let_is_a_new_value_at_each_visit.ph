// LANGUAGE §9.6: a `let` is an equality for one evaluation of it. A `let` in a loop body is evaluated
// again in every iteration (a new load), and a function's `let` in every inlined call, so the store
// of one iteration (or call) and the barrier skipped in the next see two values: both reads follow
// an unordered store. And a `var` is a fresh unknown at each occurrence, `let` or not around it.
// pins: L9.6-constants L9.6b L9.6-loops
fn maybe(u: tile<f32>[1, 32], B: tensor<i32>[1, 32], k: i32) {
  let v = B[0, 0]
  if v > 0 && k == 1 {
    u[0, ctx.lane] = 1.0
  }
  if v > 0 && k == 2 {
    barrier()
  }
}
@launch(128)
kernel k(A: tensor<f32>[1, 32], B: tensor<i32>[1, 32], O: tensor<f32>[4, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(0, n) {
    let v = B[0, i]
    if v > 0 {
      barrier()
    }
    O[0 :+ 1, 0 :+ 32] = t         //~ error PH303
    if v > 0 {
      t[0, ctx.lane] = 1.0
    }
  }
  barrier()
  maybe(t, B, 1)
  maybe(t, B, 2)
  O[1 :+ 1, 0 :+ 32] = t         //~ error PH303
  barrier()
  var c = B[0, 2]
  if c > 0 {
    t[0, ctx.lane] = 2.0
  }
  if c > 0 {
    barrier()
  }
  O[2 :+ 1, 0 :+ 32] = t         //~ error PH303
}
