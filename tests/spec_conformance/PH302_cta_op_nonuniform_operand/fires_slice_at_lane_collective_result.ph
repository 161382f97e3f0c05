// "Lane-level operations": op<over ctx.lane>(x) is "over the whole warp, warp-uniform", not uniform,
// so its result is no slice offset (different warps hold different results).
// pins: lane.lane-collective-result everyone.rule-operands L9.7c
@launch(128)
kernel k(A: tensor<f32>[1, 64], C: tensor<i32>[128], O: tensor<f32>[1, 64]) {
  let first = min<over ctx.lane>(C[ctx.thread])
  O[0 :+ 1, first :+ 8] = A[0 :+ 1, 0 :+ 8]     //~ error PH302 "between warps"
}
