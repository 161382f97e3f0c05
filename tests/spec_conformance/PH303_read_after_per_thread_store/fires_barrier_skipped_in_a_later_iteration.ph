// LANGUAGE §9.6: the barrier is skipped where `i == 3`, and an iteration i' = 3 can follow a store of
// an iteration i < 3: that path is feasible, and reported through the loop's back edge.
// pins: L9.6-conditions L9.6b ex.loops
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for i in range(0, n) {
    if i != 3 {
      barrier()
    }
    O[0 :+ 1, 0 :+ 32] = t        //~ error PH303
    t[0, ctx.lane] = 1.0
  }
}
