// LANGUAGE §9.6: a path property: when every path from the store to the read passes a barrier()
// (one in each branch of a uniform if), the read is fine.
// pins: L9.6a ex.with-barrier
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  if n > 0 {
    barrier()
  } else {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t
}
