// "stored per thread, with a varying value, index or control": a uniform element and value written
// under per-thread control (and under warp-uniform control, LANGUAGE §9.4).
// pins: everyone.rule-barrier L9.4
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[2, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if ctx.lane == 0 {
    t[0, 0] = 2.0
  }
  O[0 :+ 1, 0 :+ 32] = t     //~ error PH303
  barrier()
  if ctx.warp == 1 {
    t[0, 1] = 3.0
  }
  O[1 :+ 1, 0 :+ 32] = t     //~ error PH303
}
