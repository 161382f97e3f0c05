// Single-pass running totals across a grid (a chained scan over CTAs): running[t] = the sum of
// X over the chunks of CTAs 0..t, and total[0] = the sum of all of X. Each CTA first takes a
// ticket t from a global counter with `atomic_add`; tickets follow the order in which CTAs
// start, so a CTA only ever waits for one that is already running. CTA t sums its chunk of
// ctx.threads elements with `sum<over ctx.thread>`, polls with `load_acquire` until CTA t - 1 has
// published its running total, adds its own, publishes that with `store_release`, and the CTA
// with the last ticket writes the grand total and resets the counter with `atomic_cas`, so the
// next launch needs no memset. `ready` flags hold the launch's `epoch`: start with ticket = 0,
// ready = 0 and epoch = 1, and pass epoch + 1 to each later launch. Launch as many CTAs as G.
// All of these operations run once per CTA, so they sit under uniform control and take only
// uniform operands: the ticket is uniform, and so is everything derived from it.
@launch(256)
kernel grid_counter(X: tensor<f32>[N], running: tensor<f32>[G], ready: tensor<i32>[G],
                    ticket: tensor<i32>[1], total: tensor<f32>[1], epoch: i32) {
  let t = atomic_add(ticket[0], 1)
  let i = t * ctx.threads + ctx.thread
  var v: f32 = 0.0
  if i < N {
    v = X[i]
  }
  let chunk_sum = sum<over ctx.thread>(v)
  var before: f32 = 0.0
  if t > 0 {
    var seen = load_acquire(ready[t - 1])
    while seen != epoch {
      seen = load_acquire(ready[t - 1])
    }
    before = running[t - 1]
  }
  running[t] = before + chunk_sum
  store_release(ready[t], epoch)
  if t == ctx.blocks.x - 1 {
    total[0] = before + chunk_sum
    atomic_cas(ticket[0], ctx.blocks.x, 0)
  }
}
