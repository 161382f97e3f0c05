// "Control": "inside if col < N { .. } with a warp-uniform col it is warp-uniform", and a CTA-wide
// operation needs uniform control, so a copy there is rejected even though whole warps agree.
// pins: control.examples everyone.rule-control
@launch(256)
kernel k(A: tensor<f32>[N, 32], O: tensor<f32>[N, 32]) {
  let col = ctx.block.x * ctx.warps + ctx.warp
  if col < N {
    O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]   //~ error PH301
  }
}
