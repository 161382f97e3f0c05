// LANGUAGE §9.6: "the condition of every branch the path takes", in the iterations it runs in. A
// path from the store leaves its iteration only past the barrier's guard, the same condition in the
// same iteration (a `let` of a load, or `m > i`), so every store is followed by a barrier before
// the loop goes on or ends; the read after the loop is ordered after them all.
// pins: L9.6-conditions L9.6-loops L9.6-constants L9.6b
@launch(128)
kernel k(A: tensor<f32>[1, 32], B: tensor<i32>[1, 32], O: tensor<f32>[2, 32], n: i32, m: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(0, n) {
    let v = B[0, i]
    if v > 0 {
      t[0, ctx.lane] = 1.0
    }
    if v > 0 {
      barrier()
    }
  }
  O[0 :+ 1, 0 :+ 32] = t
  for i in range(0, n) {
    if m > i {
      t[0, ctx.lane] = 2.0
    }
    if m > i {
      barrier()
    }
  }
  O[1 :+ 1, 0 :+ 32] = t
}
