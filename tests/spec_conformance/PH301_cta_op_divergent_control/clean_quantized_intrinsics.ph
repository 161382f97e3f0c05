// "What needs every thread": the quantized intrinsics under uniform control with uniform slice offsets
// (LANGUAGE §8 shapes: i8 [M, K] and [N, K], f32 scales [M, K/32] and [N, K/32], or [K/32, N] for
// qmma_t; K a multiple of 32; qmma_t's M and N multiples of 8).
// pins: everyone.rule-control everyone.ops L8.cta-wide
@launch(128)
kernel k(X: tensor<i8>[16, 64], W: tensor<i8>[8, 64], SX: tensor<f32>[16, 2], SW: tensor<f32>[8, 2],
         SWT: tensor<f32>[2, 8], O: tensor<f32>[16, 8]) {
  let a = X[0 :+ 16, 0 :+ 64]
  let w = W[0 :+ 8, 0 :+ 64]
  var o: tile<f32>[16, 8] = qdot_t(a, SX[0 :+ 16, 0 :+ 2], w, SW[0 :+ 8, 0 :+ 2])
  o = o + qmma_t(a, SX[0 :+ 16, 0 :+ 2], w, SWT[0 :+ 2, 0 :+ 8])
  O[0 :+ 16, 0 :+ 8] = o
}
