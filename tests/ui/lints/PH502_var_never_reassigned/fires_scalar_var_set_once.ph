// PH502: scalar vars read but assigned only by their initializers
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  var x = A[ctx.thread]                     //~ warning PH502 "`x` is a `var`"
  var y: f32 = 2.0                          //~ warning PH502
  O[ctx.thread] = x * y
}
