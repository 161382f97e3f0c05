// LANGUAGE §9.3: a `break` under varying control raises the loop's `while` condition, "calls and
// operations in it included": the shuffle after the call runs, in later iterations, only in the
// lanes still looping.
// pins: L9.3a L6.loops L8.lane-level
fn limit(i: i32) -> i32 {
  return i + 1
}

@launch(128)
kernel k(A: tensor<i32>[128], O: tensor<i32>[128]) {
  var i = 0
  let x = A[ctx.thread]
  while limit(i) < shfl<xor 1>(x) {    //~ error PH304
    if x > i {
      break
    }
    i += 1
  }
  O[ctx.thread] = i
}
