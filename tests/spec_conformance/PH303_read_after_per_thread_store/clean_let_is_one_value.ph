// LANGUAGE §9.6: z3 is told "`let` bindings as equalities"; only "anything else (a `var`, a load, a
// call's or collective's result, any float) is a fresh unknown of its type at each occurrence". A
// `let` of a load, of a `var`, of a call's or of a collective's result is one value wherever its name
// occurs: the store and the barrier below run under the same decision, and `x == x` holds.
// pins: L9.6-constants L9.6b
fn one() -> i32 {
  return 1
}
@launch(128)
kernel k(A: tensor<f32>[1, 32], B: tensor<i32>[1, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  let v = B[0, 0]
  if v > 0 {
    t[0, ctx.lane] = 1.0
  }
  if v > 0 {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t
  var c = B[0, 1]
  let w = c
  c = 0
  if w > 0 {
    t[0, ctx.lane] = 2.0
  }
  if w > 0 {
    barrier()
  }
  O[1 :+ 1, 0 :+ 32] = t
  let x = one()
  t[0, ctx.lane] = 3.0
  if x == x {
    barrier()
  }
  O[2 :+ 1, 0 :+ 32] = t
  let s = sum<over ctx.thread>(B[0, ctx.lane])
  if s > 0 {
    t[0, ctx.lane] = 4.0
  }
  if s > 0 {
    barrier()
  }
  O[3 :+ 1, 0 :+ 32] = t
}
