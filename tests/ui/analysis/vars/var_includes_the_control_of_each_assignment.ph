// LANGUAGE §9.1: var includes the control of each assignment
// the initializer is an assignment too, run under varying control here
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var w = 0    //~ kind w warp-uniform
  if ctx.warp == 0 {
    w = 1
  }
  var l = 0    //~ kind l varying
  if ctx.lane == 3 {
    l = 1
  }
  var u = 0    //~ kind u uniform
  if ctx.block.x == 3 {
    u = 1
  }
  var m = 0    //~ kind m warp-uniform
  for i in range(0, ctx.warp) {
    m = 1
  }
  if ctx.lane == 0 {
    var decl = 1    //~ kind decl varying
  }
}
