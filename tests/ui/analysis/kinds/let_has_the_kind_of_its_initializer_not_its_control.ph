// LANGUAGE §9.2: let has the kind of its initializer not its control
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  let a = ctx.block.x * ctx.warps + ctx.warp    //~ kind a warp-uniform
  let b = a * 32 + ctx.lane    //~ kind b varying
  let c = ctx.blocks.x + ctx.threads + ctx.lanes    //~ kind c uniform
  if ctx.lane == 0 {
    let d = c + 1    //~ kind d uniform
  }
}
