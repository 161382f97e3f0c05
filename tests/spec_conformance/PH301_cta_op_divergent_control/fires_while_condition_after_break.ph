// LANGUAGE §9.3: a varying break raises every statement of its loop "and the loop's condition":
// the threads that left no longer evaluate it, so an acquire load polled there is rejected.
// pins: L9.3a control.early-exit
@launch(128)
kernel k(F: tensor<i32>[4], O: tensor<i32>[128]) {
  while load_acquire(F[0]) == 0 {              //~ error PH301
    if O[ctx.thread] > 0 {
      break
    }
  }
}
