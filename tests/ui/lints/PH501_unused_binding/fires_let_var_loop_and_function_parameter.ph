// PH501: a let, a var, a loop variable and a function parameter that nothing reads
fn scaled(x: f32, unused: f32) -> f32 {   //~ warning PH501 "`unused` is never read"
  return x * 2.0
}

@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  let scale = A[0]                          //~ warning PH501 "`scale`"
  var count = 0                             //~ warning PH501
  count += 1
  for i in range(0, 4) {                    //~ warning PH501 "`i`"
    O[ctx.thread] = scaled(A[ctx.thread], 1.0)
  }
}
