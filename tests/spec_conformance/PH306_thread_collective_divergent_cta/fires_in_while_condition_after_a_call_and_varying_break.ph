// LANGUAGE §6: "a `while` loop evaluates its whole condition before every iteration, calls included";
// §9.3: "a `break` under control K raises, to at least K, every statement of its loop ... and the
// loop's condition (a `while` condition, calls and operations in it included)". The collective comes
// after the call `limit(i)` in the condition, and still runs only in the threads that did not leave.
// pins: L6.loops L9.3a lane.cta-collective
fn limit(i: i32) -> i32 {
  return i + 1
}

@launch(128)
kernel k(A: tensor<i32>[128], O: tensor<i32>[128]) {
  var i = 0
  while limit(i) < sum<over ctx.thread>(A[ctx.thread]) {    //~ error PH306
    if A[ctx.thread] > i {
      break
    }
    i += 1
  }
  O[ctx.thread] = i
}
