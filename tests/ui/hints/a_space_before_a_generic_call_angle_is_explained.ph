// `sum <over ctx.lane>(v)`: no space may come between a built-in and the `<` of its generic call
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  let v = A[ctx.thread]
  let s = sum <over ctx.lane>(v)    //~ error PH005 "no space between `sum` and `<`" help "`sum<over ctx.lane>(v)`"
  O[ctx.thread] = s
}
