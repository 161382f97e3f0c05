// LANGUAGE §9.3: "an operation on the right of `&&` or `||` runs under the join of its statement's
// control and the kind of the left side". A uniform left side leaves the barrier in `sync_true`
// under uniform control, wherever the `&&` stands; a `while` whose condition and exits are uniform
// keeps the calls in its condition uniform too.
// pins: L9.3e L6.binary L6.loops
fn sync_true() -> bool {
  barrier()
  return true
}

@launch(128)
kernel k(A: tensor<i32>[128], O: tensor<i32>[128], n: i32) {
  let ok = n > 0 && sync_true()
  let no = !(n > 1 || sync_true())
  var i = 0
  while i < n && sync_true() {
    if n > 5 {
      break
    }
    i += 1
  }
  O[ctx.thread] = where(ok && no, 1, 0)
}
