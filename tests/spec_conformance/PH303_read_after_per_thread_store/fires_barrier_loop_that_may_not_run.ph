// LANGUAGE §9.6: a barrier in a loop cuts a path only where the loop provably runs. `range(0, n)` with
// a runtime `n` may run no iteration (n <= 0); a `while` condition on a `var` is a fresh unknown to
// z3, so the path that leaves before the first iteration stays.
// pins: L9.6-loops L9.6b L9.6a
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[2, 32], n: i32, go: bool) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  for i in range(0, n) {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
  t[0, ctx.lane] = 2.0
  var more = go
  while more {
    barrier()
    more = false
  }
  O[1 :+ 1, 0 :+ 32] = t          //~ error PH303
}
