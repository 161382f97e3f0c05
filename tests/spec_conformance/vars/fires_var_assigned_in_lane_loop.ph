// "A var is as varying as ... the conditions it was assigned under, through every iteration of a
// loop": a uniform value added in a lane-strided loop gives a per-thread count (the page's "one
// partial sum per thread").
// pins: kinds.var kinds.scalar-var-registers L9.1
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  var count = 0                                   //~ kind count varying
  for c in range(ctx.lane, 256, 32) {
    count += 1
  }
  O[0 :+ 1, count :+ 1] = A[0 :+ 1, 0 :+ 1]      //~ error PH302
}
