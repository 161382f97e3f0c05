// LANGUAGE §8: every tile built-in is a CTA-wide operation; per-thread-values.md "What needs every
// thread": "They run only under uniform control". Each built-in, each under per-thread control.
// pins: everyone.rule-control everyone.ops L8.cta-wide
@launch(256)
kernel k(A: tensor<f32>[64, 64], O: tensor<f32>[64, 64]) {
  var a: tile<f32>[16, 16] = A[0 :+ 16, 0 :+ 16]
  var b: tile<f32>[16, 16] = A[16 :+ 16, 0 :+ 16]
  var c: tile<f32>[16, 16] = 0.0
  var r: tile<f32>[16, 1] = 0.0
  if ctx.lane == 1 {
    c = dot(a, b)          //~ error PH301 "`dot`"
    c = dot_t(a, b)        //~ error PH301 "`dot_t`"
    r = rowsum(a)          //~ error PH301 "`rowsum`"
    r = rowmax(a)          //~ error PH301 "`rowmax`"
    c = cumsum(a)          //~ error PH301 "`cumsum`"
    c = tril(a)            //~ error PH301 "`tril`"
    c = transpose(a)       //~ error PH301 "`transpose`"
  }
  O[0 :+ 16, 0 :+ 16] = c
  O[16 :+ 16, 0 :+ 1] = r
}
