// "Lane-level operations": a shuffle's result is "As varying as its operands"; LANGUAGE §8: "join of
// the kinds of v and E". A uniform value from a lane chosen per lane is varying; a warp-uniform value
// moved within its warp stays warp-uniform.
// pins: lane.shuffle-result L8.lane-level
@launch(128)
kernel k(A: tensor<i32>[1, 128], O: tensor<i32>[1, 128], n: i32) {
  let a = shfl<xor 1>(n)                  //~ kind a uniform
  let b = shfl<down 1>(ctx.warp)          //~ kind b warp-uniform
  let c = shfl<idx ctx.lane>(n)           //~ kind c varying
  let d = shfl<up ctx.warp>(n)            //~ kind d warp-uniform
  let e = shfl<xor 4>(A[0, ctx.thread])   //~ kind e varying
  let f = shfl<idx 0>(ctx.lane)           //~ kind f varying
  O[0, ctx.thread] = a + b + c + d + e + f
}
