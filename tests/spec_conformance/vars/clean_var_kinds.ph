// "A var is as varying as anything assigned to it, and as the conditions it was assigned under"
// (LANGUAGE §9.1: the join over every assignment, its initializer included, of the value's kind and
// the control kind of the assignment).
// pins: kinds.var L9.1
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256], n: i32) {
  var a = 0                 //~ kind a uniform
  a = n + 1
  var b = 0                 //~ kind b warp-uniform
  b = ctx.warp
  var c = 0                 //~ kind c varying
  c += ctx.lane
  var d = 0                 //~ kind d warp-uniform
  if ctx.warp == 1 {
    d = 1
  }
  var e = n                 //~ kind e varying
  if ctx.thread > 9 {
    e = 2
  }
  var f: f32                //~ kind f varying
  f = A[0, ctx.thread]
  O[0, ctx.thread] = f32(a + b + c + d + e) + f
}
