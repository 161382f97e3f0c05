// LANGUAGE §9.9: var join takes the more varying side in any order
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var a = ctx.lane    //~ kind a varying
  a = ctx.warp
  var b = ctx.warp    //~ kind b varying
  b = ctx.lane
  var c = 0    //~ kind c warp-uniform
  c = ctx.warp
  c = 1
  var d = 0    //~ kind d warp-uniform
  if ctx.warp == 0 {
    d = ctx.block.x
  }
}
