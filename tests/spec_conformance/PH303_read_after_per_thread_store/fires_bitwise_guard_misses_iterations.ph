// LANGUAGE §9.6: with `|` exact, z3 finds the iterations the barrier's guard leaves out: the
// store runs at every even `h`, the barrier only where `(h | 2) == 2` (h = 0 and h = 2), so at
// h = 4 the read follows the store with no barrier between.
// pins: L9.6-constants L9.6a
@launch(64)
kernel k(O: tensor<f32>[1, 64], n: i32) {
  var s: tile<f32>[1, 64] = 0.0
  for h in range(0, n) {
    if (h & 1) == 0 {
      s[0, ctx.thread] = 2.0
    }
    if (h | 2) == 2 {
      barrier()
    }
    O[0 :+ 1, 0 :+ 64] = s //~ error PH303
  }
}
