// `1.0f`: the fix removes the suffix (a float literal is an f32)
@launch(64)
kernel k(O: tensor<f32>[64]) {
  O[ctx.thread] = 1.0f    //~ error PH005 "no suffix such as `f`" help "`1.0`"
}
