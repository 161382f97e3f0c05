// LANGUAGE §9.6: "a loop whose bounds prove it runs at least once cannot be left before its first
// iteration"; the constants z3 is told include `ctx.warps` (the `@launch` count / 32) and `-D` and
// `@autotune` values; "for example ... `for i in range(0, 2) { barrier() }` between the store and the
// read". Each loop below runs its barrier at least once, so no path skips it.
// pins: L9.6-loops L9.6-examples L9.6-constants L9.6b
@launch(128)
@autotune(BLK in [64, 128])
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[3, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  for i in range(0, 2) {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t
  t[0, ctx.lane] = 2.0
  for w in range(0, ctx.warps) {
    barrier()
  }
  O[1 :+ 1, 0 :+ 32] = t
  t[0, ctx.lane] = 3.0
  for b in range(0, BLK / 64) {
    barrier()
  }
  O[2 :+ 1, 0 :+ 32] = t
}
