// LANGUAGE §9.3: a return under warp-uniform control raises the rest of the kernel to warp-uniform:
// whole warps leave, so lane collectives after it still see every lane of their warp.
// pins: lane.lane-collective L9.3c control.early-exit
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 8], n: i32) {
  if ctx.warp >= n {
    return
  }
  let s = sum<over ctx.lane>(A[0, ctx.thread])
  if ctx.lane == 0 {
    O[0, ctx.warp] = s
  }
}
