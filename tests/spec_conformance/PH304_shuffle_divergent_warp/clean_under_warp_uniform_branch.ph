// "Lane-level operations": a shuffle needs "control that is the same across a warp"; warp-uniform
// control qualifies: whole warps take or skip the branch.
// pins: lane.shuffle control.examples
@launch(256)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32], N: i32) {
  let row = ctx.block.x * ctx.warps + ctx.warp
  if row < N {
    var v = A[row % 8, ctx.lane]
    v += shfl<down 16>(v)
    v += shfl<down 8>(v)
    O[row % 8, ctx.lane] = v
  }
}
