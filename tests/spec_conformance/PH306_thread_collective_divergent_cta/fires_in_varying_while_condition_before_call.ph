// LANGUAGE §6: "a `while` loop evaluates its whole condition before every iteration, calls
// included"; §9.3 and per-thread-values.md, "Control": a condition that differs between threads
// makes the later iterations run in only some of them, the condition itself included. The CTA
// collective in the condition then runs without the threads that left.
// pins: L6.loops L9.3 lane.cta-collective
fn below(i: i32, n: i32) -> bool {
  return i < n
}

@launch(128)
kernel k(A: tensor<i32>[128], O: tensor<i32>[128]) {
  var i = 0
  while sum<over ctx.thread>(A[ctx.thread]) > i && below(i, ctx.lane) {    //~ error PH306
    i += 1
  }
  O[ctx.thread] = i
}
