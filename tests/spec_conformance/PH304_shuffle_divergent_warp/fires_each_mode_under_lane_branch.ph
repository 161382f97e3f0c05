// per-thread-values.md, "Lane-level operations": `shfl<..>(v)` needs "Every lane of the warp:
// control that is the same across a warp". Each mode of LANGUAGE §8 under a lane condition.
// pins: lane.shuffle L8.lane-level
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var v = A[0, ctx.thread]
  if ctx.lane < 16 {
    v = shfl<xor 1>(v)          //~ error PH304 "`shfl<xor ..>` needs every lane of the warp, but control differs between lanes"
    v = shfl<up 1>(v)           //~ error PH304 "`shfl<up ..>`"
    v = shfl<down 2>(v)         //~ error PH304 "`shfl<down ..>`"
    v = shfl<idx 0>(v)          //~ error PH304 "`shfl<idx ..>`"
  }
  O[0, ctx.thread] = v
}
