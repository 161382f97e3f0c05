// kinds carried through two vars
// origin first: ctx.lane into b, b into a, a into the condition
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var a = 0    //~ kind a varying
  var b = 0    //~ kind b varying
  var c = 0    //~ kind c uniform
  for i in range(0, 4) {
    if a == 1 {    //~ chain "`a` differs between lanes, so this condition does"
      barrier()          //~ error PH301
    }
    a = b    //~ chain "`b` differs between lanes, so `a` does"
    b = ctx.lane    //~ chain "`ctx.lane` differs between lanes, so `b` does"
  }
  var p = 0    //~ kind p warp-uniform
  var q = 0    //~ kind q warp-uniform
  for j in range(0, 4) {
    p = q + 1
    q = ctx.warp
  }
  var u = 0    //~ kind u uniform
  var w = 0    //~ kind w uniform
  for m in range(0, 4) {
    u = w
    w = u + 1
  }
}
