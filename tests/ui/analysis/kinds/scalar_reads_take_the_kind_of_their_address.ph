// LANGUAGE §9.8: scalar reads take the kind of their address
@launch(256)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[8, 32] = A[0 :+ 8, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  barrier()
  let x0 = t[0, 0]    //~ kind x0 uniform
  let x1 = t[0, ctx.lane]    //~ kind x1 varying
  let x2 = A[ctx.warp, 0]    //~ kind x2 warp-uniform
  let v = t[0 :+ 1, 0 :+ 32]
  let x3 = v[0, 1]    //~ kind x3 uniform
  let x4 = v[0, ctx.lane]    //~ kind x4 varying
  let x5 = A[0, i32(x0)]    //~ kind x5 uniform
  let x6 = A[0, i32(x1)]    //~ kind x6 varying
  let r0 = elem(A[0, 0 :+ 4])    //~ kind r0 uniform
  let r1 = elem(A[ctx.warp, 0 :+ 4])    //~ kind r1 warp-uniform
  let s1 = sum(A[0, ctx.lane % 8 * 4 :+ 4])    //~ kind s1 varying
  var t2: tile<f32>[1, 32] = A[0 :+ 1, i32(x0) :+ 32]
}
