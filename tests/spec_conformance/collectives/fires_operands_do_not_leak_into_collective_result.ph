// The result kinds are fixed by the operation, not by the operand: a CTA collective of ctx.lane is
// uniform, but the lane collective of the same operand is warp-uniform, so only the second is rejected
// as an offset.
// pins: L9.2c lane.cta-collective-result lane.lane-collective-result
@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  let c = sum<over ctx.thread>(ctx.lane)     //~ kind c uniform
  let l = sum<over ctx.lane>(ctx.lane)       //~ kind l warp-uniform
  O[0 :+ 1, c % 32 :+ 8] = A[0 :+ 1, 0 :+ 8]
  O[0 :+ 1, l % 32 :+ 8] = A[0 :+ 1, 0 :+ 8] //~ error PH302
}
