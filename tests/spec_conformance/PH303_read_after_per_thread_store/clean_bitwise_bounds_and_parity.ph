// LANGUAGE §9.6: "integer arithmetic is exact in the type's width": `m & 1` is the same value at
// both of its occurrences, so the first loop runs at most once; and `(g & 1) == 0` decides the
// store and the barrier alike, so every iteration that stores also waits before the read.
// pins: L9.6-constants L9.6b
@launch(64)
kernel k(O: tensor<f32>[1, 64], m: i32, n: i32) {
  var s: tile<f32>[1, 64] = 0.0
  for g in range(m & 1, (m & 1) + 1) {
    O[0 :+ 1, 0 :+ 64] = s
    s[0, ctx.thread] = 1.0
  }
  barrier()
  for h in range(0, n) {
    if (h & 1) == 0 {
      s[0, ctx.thread] = 2.0
    }
    if (h & 1) == 0 {
      barrier()
    }
    O[0 :+ 1, 0 :+ 64] = s
  }
}
