// LANGUAGE §6: a call evaluates its arguments at its place, and `&&` runs its right side only where
// the left side does not decide; §9.3: the right side runs under the kind of the left side. The
// shuffle in `more`'s argument runs only in the lanes where `ctx.lane < 16`.
// pins: L9.3e L6.call L8.lane-level
fn more(x: i32) -> bool {
  return x > 0
}

@launch(128)
kernel k(A: tensor<i32>[128], O: tensor<i32>[128]) {
  let x = A[ctx.thread]
  let ok = ctx.lane < 16 && more(shfl<xor 1>(x))    //~ error PH304
  O[ctx.thread] = where(ok, 1, 0)
}
