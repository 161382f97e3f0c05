// LANGUAGE §6: "a call ... evaluates its arguments left to right, then itself (an inlined function's
// body runs there)"; an `if` evaluates its condition before its branches, and `where(c, a, b)`
// evaluates `c`, `a` and `b` and "does not branch". Each barrier below runs in every thread before
// the CTA-wide read that follows it, so every store-to-read path passes one.
// pins: L6.order L6.call L6.where L9.6-grain L9.6a
fn sync_true() -> bool {
  barrier()
  return true
}

fn sync_zero() -> i32 {
  barrier()
  return 0
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[4, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  if sync_true() {
    O[0 :+ 1, 0 :+ 32] = t
  }
  t[0, ctx.lane] = 2.0
  let z = where(ctx.lane == 0, sync_zero(), 1)
  O[1 :+ 1, 0 :+ 32] = t
  t[0, ctx.lane] = 3.0
  O[sync_zero() + 2 :+ 1, 0 :+ 32] = t
  t[0, ctx.lane] = 4.0
  let ok = n > 0 || sync_true()
  if n > 0 {
    barrier()
  }
  O[3 :+ 1, 0 :+ 32] = t
}
