// "Control": `&&` and `||` short-circuit (LANGUAGE §6), so the right operand runs only in the threads
// where the left one lets it: an acquire load there is under per-thread control.
// pins: control.enclosing everyone.rule-control
@launch(128)
kernel k(F: tensor<i32>[4], O: tensor<i32>[128]) {
  let ready = ctx.lane == 0 && load_acquire(F[0]) == 1     //~ error PH301
  let other = ctx.warp > 0 || atomic_add(F[1], 1) > 3      //~ error PH301
  if ready || other {
    O[ctx.thread] = 1
  }
}
