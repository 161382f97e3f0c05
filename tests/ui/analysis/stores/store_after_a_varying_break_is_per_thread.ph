// LANGUAGE §9.4: store after a varying break is per thread
@launch(256)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  for i in range(0, 4) {
    if ctx.lane == 0 {
      break
    }
    t[0, 0] = 1.0    //~ chain "under control that differs between lanes"
  }
  O[0 :+ 4, 0 :+ 32] = t        //~ error PH303
}
