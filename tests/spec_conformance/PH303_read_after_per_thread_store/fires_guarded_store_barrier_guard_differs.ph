// LANGUAGE §9.6: the barrier's guard must hold in the store's own iteration for the path to be cut:
// `B[0, i]` is loaded again in each iteration (a fresh unknown at each occurrence), and `m > i + 1`
// fails in the iteration i = m - 1 that stores, so a path leaves that iteration past no barrier.
// pins: L9.6-conditions L9.6-loops L9.6-constants L9.6b
@launch(128)
kernel k(A: tensor<f32>[1, 32], B: tensor<i32>[1, 32], O: tensor<f32>[2, 32], n: i32, m: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(0, n) {
    if B[0, i] > 0 {
      t[0, ctx.lane] = 1.0
    }
    if B[0, i] > 0 {
      barrier()
    }
  }
  O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
  barrier()
  for i in range(0, n) {
    if m > i {
      t[0, ctx.lane] = 2.0
    }
    if m > i + 1 {
      barrier()
    }
  }
  O[1 :+ 1, 0 :+ 32] = t          //~ error PH303
}
