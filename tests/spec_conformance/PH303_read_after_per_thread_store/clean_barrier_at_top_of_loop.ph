// "The check follows loops": with barrier() between the store and the next iteration's read (at the
// top of the body) every carried path is cut.
// pins: ex.loops ex.with-barrier L9.6a
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  for r in range(0, 4) {
    barrier()
    O[r :+ 1, 0 :+ 32] = t
    t[0, ctx.lane] = f32(r)
  }
}
