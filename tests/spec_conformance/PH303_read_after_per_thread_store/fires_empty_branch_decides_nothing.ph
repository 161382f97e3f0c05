// LANGUAGE §9.6: z3 is told "the condition of every branch the path takes". A branch whose two
// ways meet again at once (`if n <= 0 { }`) decides nothing about the path: it must not be read as
// `n > 0`, which would contradict the `n <= 0` the path needs to skip the barrier below.
// pins: L9.6-conditions L9.6b L9.6a
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  if n <= 0 {
  }
  if n > 0 {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
}
