// LANGUAGE §2: "An uncalled function is parsed and type-checked only": a barrier under a per-lane
// branch in a function nobody calls is never reached and not reported.
// pins: L9.3
fn never(x: i32) {
  if x == 0 {
    barrier()
  }
}

@launch(128)
kernel k(O: tensor<i32>[128]) {
  O[ctx.thread] = 1
}
