// "A var is as varying as ... the conditions it was assigned under": a uniform value assigned under
// a warp-uniform branch makes the var warp-uniform, rejected as a slice offset.
// pins: kinds.var L9.1 L9.7c
@launch(256)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var off = 0                         //~ kind off warp-uniform
  if ctx.warp == 0 {
    off = 8
  }
  O[0 :+ 1, off :+ 8] = A[0 :+ 1, 0 :+ 8]      //~ error PH302 "between warps"
}
