// ph304 shuffle needs warp uniform control
// the spec section of PH304 is "Lane-level operations"
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  var v = A[0, ctx.thread]
  if ctx.lane < 16 {    //~ chain "`ctx.lane` differs between lanes, so this condition does"
    v = shfl<xor 1>(v)         //~ error PH304 "`shfl<xor ..>` needs every lane of the warp, but control differs between lanes"
  }
  if ctx.warp == 0 {
    v = shfl<down 1>(v)
  }
  for i in range(0, ctx.lane) {
    v = shfl<up 1>(v)          //~ error PH304 "`shfl<up ..>`"
  }
  v = shfl<idx ctx.lane>(v)
  O[0, ctx.thread] = v
}
