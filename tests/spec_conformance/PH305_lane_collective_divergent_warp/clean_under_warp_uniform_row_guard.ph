// per-thread-values.md, "Lane-level operations": "A lane collective may therefore sit inside
// if col < N { .. } when col is warp-uniform". LANGUAGE §11's row_sums.
// pins: lane.example lane.lane-collective control.examples
@launch(256)
kernel row_sums(A: tensor<f32>[M, N], out: tensor<f32>[M]) {
  let row = ctx.block.x * ctx.warps + ctx.warp     //~ kind row warp-uniform
  if row < M {
    var acc: f32 = 0.0                             //~ kind acc varying
    for c in range(ctx.lane, N, ctx.lanes) {       //~ kind c varying
      acc += A[row, c]
    }
    let total = sum<over ctx.lane>(acc)            //~ kind total warp-uniform
    if ctx.lane == 0 {
      out[row] = total
    }
  }
}
