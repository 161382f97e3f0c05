// per-thread-values.md, "Control": a `while` condition that differs between lanes makes the later
// iterations, the condition's own included, run in only some lanes (§9.3); the lane collective
// after the call `limit(i)` is part of that condition.
// pins: L6.loops L9.3 lane.lane-collective
fn limit(i: i32) -> i32 {
  return i + 1
}

@launch(128)
kernel k(A: tensor<i32>[128], O: tensor<i32>[128]) {
  var i = ctx.lane
  while limit(i) < sum<over ctx.lane>(A[ctx.thread]) {    //~ error PH305
    i += 1
  }
  O[ctx.thread] = i
}
