// "A loop variable is as varying as the loop's bounds", so a slice offset built from a lane-strided
// loop variable is per-thread. (The copy is also under varying control: PH301 on the same line.)
// pins: kinds.loop-variable everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  for c in range(ctx.lane, 256, ctx.lanes) {
    O[0 :+ 1, c :+ 1] = A[0 :+ 1, c :+ 1]    //~ error PH301 PH302 PH302
  }
}
