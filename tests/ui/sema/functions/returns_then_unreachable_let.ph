// a function that always returns: then unreachable let
// A function returns on every path when some statement of its body always returns: what follows
// it cannot run.
fn f(x: i32) -> i32 {
  return x
  let y = 1
}
@launch(32)
kernel k(O: tensor<i32>[32]) {
  O[ctx.thread] = f(ctx.lane)
}
