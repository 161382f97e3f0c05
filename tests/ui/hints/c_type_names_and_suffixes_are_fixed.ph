// a C type name is its Phobos type, with a fix; an unsigned type has no certain fix
@launch(64)
kernel k(A: tensor<float>[64], O: tensor<f32>[64]) {    //~ error PH118 help "`f32`"
  let x: int = 1    //~ error PH118 help "`i32`"
  let y: double = 2.0    //~ error PH118 help "`f64`"
  O[ctx.thread] = A[ctx.thread] + f32(x) + f32(y)
}
