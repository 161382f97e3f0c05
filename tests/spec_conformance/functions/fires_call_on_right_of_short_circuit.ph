// "&& and || short-circuit (the right side does not run when the left decides)" (LANGUAGE §6), so
// a function called on the right runs only in the threads the left side lets through: what it
// does runs under control as varying as that left side, as inside `if left { .. }`.
// pins: control.enclosing L9.3
fn sync_ok() -> bool {
  barrier() //~ error PH301
  return true
}
fn any_big(x: i32) -> bool {
  return max<over ctx.lane>(x) > 3 //~ error PH305
}
@launch(128)
kernel k(A: tensor<i32>[128], N: tensor<i32>[1], O: tensor<i32>[128]) {
  let ok = ctx.lane == 0 && sync_ok()
  let big = ctx.lane < 16 || any_big(A[ctx.thread])
  let fine = N[0] > 0 && sync_ok()
  O[ctx.thread] = where(ok && big && fine, 1, 0)
}
