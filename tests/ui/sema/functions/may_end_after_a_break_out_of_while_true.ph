// a function that may leave its loop may end without a value: after a break out of while true
// A function returns on every path when some statement of its body always returns: what follows
// it cannot run.
fn f(x: i32) -> i32 {
  while true {
    if x > 0 {
      break
    }
    return x
  }
}    //~ error PH114 "`f` may reach its end without returning a value" help "end every path with a `return` of type i32"
@launch(32)
kernel k(O: tensor<i32>[32]) {
  O[ctx.thread] = f(ctx.lane)
}
