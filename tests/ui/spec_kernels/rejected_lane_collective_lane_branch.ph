// Not a kernel from the page: built from its sentence under "Lane-level operations": "A lane
// collective may therefore sit inside if col < N { .. } when col is warp-uniform, but not inside
// if ctx.lane < 16 { .. }." The outer branch on the warp-uniform col is fine; the inner one on
// ctx.lane leaves half of each warp out of the collective.
// Expected: PH305 on the collective ("`sum<over ctx.lane>` needs every lane of the warp, but
// control differs between lanes"), the chain pointing at `ctx.lane < 16`.
@launch(256)
kernel k(A: tensor<f32>[N, 32], y: tensor<f32>[N]) {
  let col = ctx.block.x * ctx.warps + ctx.warp
  if col < N {
    let v = A[col, ctx.lane]
    if ctx.lane < 16 {    //~ chain "`ctx.lane` differs between lanes, so this condition does"
      let total = sum<over ctx.lane>(v)          //~ error PH305 "`sum<over ctx.lane>` needs every lane of the warp, but control differs between lanes"
      if ctx.lane == 0 {
        y[col] = total
      }
    }
  }
}
