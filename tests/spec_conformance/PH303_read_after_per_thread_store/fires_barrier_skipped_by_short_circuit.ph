// LANGUAGE §6: "`&&` and `||` evaluate the right side only when the left does not decide, wherever
// they stand (a condition, a `let`, an argument, under `!`)"; §9.6: "a barrier inside an inlined
// call, on the right of `&&` ... is on the path only where it runs". Where `n > 0` fails, the
// barrier in `sync_true` never runs, so the read of `t` follows the per-thread store unordered.
// pins: L6.order L6.binary L9.6-grain L9.6a everyone.rule-barrier
fn sync_true() -> bool {
  barrier()
  return true
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[4, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  let ok = n > 0 && sync_true()
  O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
  t[0, ctx.lane] = 2.0
  let skip = !(n > 0 && sync_true())
  O[1 :+ 1, 0 :+ 32] = t          //~ error PH303
  t[0, ctx.lane] = 3.0
  O[2, ctx.thread % 32] = where(n < 0 || sync_true(), 1.0, 0.0)
  O[3 :+ 1, 0 :+ 32] = t          //~ error PH303
}
