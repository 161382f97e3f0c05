// LANGUAGE §9.3: a `break` under varying control raises "the loop's condition (a `while` condition,
// calls and operations in it included)": the lane collective inside `total` runs, in later
// iterations, only in the lanes still looping.
// pins: L9.3a L6.loops lane.lane-collective
fn total(x: i32) -> i32 {
  return sum<over ctx.lane>(x)    //~ error PH305
}

@launch(128)
kernel k(A: tensor<i32>[128], O: tensor<i32>[128], n: i32) {
  var i = 0
  while total(i) < n {
    if A[ctx.thread] > i {
      break
    }
    i += 1
  }
  O[ctx.thread] = i
}
