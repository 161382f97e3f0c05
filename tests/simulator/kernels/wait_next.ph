// CTA b waits until CTA b + 1 has raised its flag: CTAs run in block order, so CTA 0 waits for
// a CTA that has not run yet.
@launch(32)
kernel wait_next(flags: tensor<i32>[G]) {
  let b = ctx.block.x
  if b + 1 < ctx.blocks.x {
    var seen = load_acquire(flags[b + 1])
    while seen == 0 {
      seen = load_acquire(flags[b + 1])
    }
  }
  store_release(flags[b], 1)
}
