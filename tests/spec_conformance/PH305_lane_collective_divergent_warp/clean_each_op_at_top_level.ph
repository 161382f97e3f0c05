// "Lane-level operations": every op of LANGUAGE §8 over ctx.lane under uniform control; each result
// is warp-uniform whatever the operand (LANGUAGE §9.2).
// pins: lane.lane-collective lane.lane-collective-result L9.2c L8.lane-collective
@launch(128)
kernel k(A: tensor<i32>[1, 128], O: tensor<i32>[1, 4], n: i32) {
  let x = A[0, ctx.thread]
  let s = sum<over ctx.lane>(x)          //~ kind s warp-uniform
  let m = max<over ctx.lane>(x)          //~ kind m warp-uniform
  let l = min<over ctx.lane>(n)          //~ kind l warp-uniform
  let a = any<over ctx.lane>(x > 0)      //~ kind a warp-uniform
  let b = all<over ctx.lane>(x > 0)      //~ kind b warp-uniform
  if a || b {
    O[0, ctx.warp] = s + m + l
  }
}
