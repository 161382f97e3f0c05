// LANGUAGE §6: `&&` and `||` short-circuit "wherever they stand (a condition, a `let`, an argument,
// under `!`)"; §9.3: what runs on the right runs under the kind of the left side. Here the left side
// differs between lanes, so only some lanes run the barrier inside `sync_true`.
// pins: L9.3e L6.binary L8.cta-wide
fn sync_true() -> bool {
  barrier()                       //~ error PH301
  return true
}

fn pick(c: bool) -> i32 {
  return where(c, 1, 0)
}

@launch(128)
kernel k(O: tensor<i32>[128]) {
  O[ctx.thread] = pick(ctx.lane > 3 || sync_true())
}
