// a missing `}`: reported at the `{` left open, naming the `{` whose `}` is indented unlike it
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {    //~ error PH005 "unclosed delimiter: `{` has no `}`"
  if ctx.thread < 32 {    //~ chain "may be the one left open"
    O[ctx.thread] = A[ctx.thread]
  let v = 1.0
}
