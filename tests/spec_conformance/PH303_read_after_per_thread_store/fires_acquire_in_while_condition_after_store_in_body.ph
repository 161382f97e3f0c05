// LANGUAGE §6: "a `while` loop evaluates its whole condition before every iteration, calls
// included". The condition's `load_acquire` reads `F` (§9.5) at the top of every iteration, after
// the per-thread store of the iteration before, with no barrier between.
// pins: L6.loops L9.6a ex.loops
@launch(128)
kernel k(F: tensor<i32>[128], n: i32) {
  while load_acquire(F[0]) < n {    //~ error PH303
    F[ctx.thread] = 1
  }
}
