// a function that always returns: after an inner loop breaks
// A function returns on every path when some statement of its body always returns: what follows
// it cannot run.
fn f(x: i32) -> i32 {
  while true {
    for i in range(0, 4) {
      break
    }
    return x
  }
}
@launch(32)
kernel k(O: tensor<i32>[32]) {
  O[ctx.thread] = f(ctx.lane)
}
