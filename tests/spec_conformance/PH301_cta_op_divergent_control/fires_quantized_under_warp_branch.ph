// "What needs every thread": "and the quantized intrinsics". qdot_t and qmma_t (LANGUAGE §8: i8
// operands, f32 scales, K a multiple of 32; qmma_t with M, N multiples of 8) under warp-uniform control.
// pins: everyone.rule-control everyone.ops L8.cta-wide
@launch(128)
kernel k(X: tensor<i8>[8, 32], W: tensor<i8>[8, 32], SX: tensor<f32>[8, 1], SW: tensor<f32>[8, 1],
         SWT: tensor<f32>[1, 8], O: tensor<f32>[8, 8]) {
  var a: tile<i8>[8, 32] = X[0 :+ 8, 0 :+ 32]
  var w: tile<i8>[8, 32] = W[0 :+ 8, 0 :+ 32]
  var sa: tile<f32>[8, 1] = SX[0 :+ 8, 0 :+ 1]
  var sw: tile<f32>[8, 1] = SW[0 :+ 8, 0 :+ 1]
  var swt: tile<f32>[1, 8] = SWT[0 :+ 1, 0 :+ 8]
  var o: tile<f32>[8, 8] = 0.0
  if ctx.warp == 0 {
    o = qdot_t(a, sa, w, sw)      //~ error PH301 "`qdot_t`"
    o = qmma_t(a, sa, w, swt)     //~ error PH301 "`qmma_t`"
  }
  O[0 :+ 8, 0 :+ 8] = o
}
