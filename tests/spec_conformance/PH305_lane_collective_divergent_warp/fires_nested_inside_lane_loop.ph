// "Control": nested control is the join of all enclosing conditions and bounds; a warp-uniform if
// inside a lane-strided loop is still varying control.
// pins: lane.lane-collective control.enclosing L9.9
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 4]) {
  for c in range(ctx.lane, 256, 32) {
    if ctx.warp == 0 {
      let s = sum<over ctx.lane>(A[0, c])   //~ error PH305
      O[0, ctx.warp] = s
    }
  }
}
