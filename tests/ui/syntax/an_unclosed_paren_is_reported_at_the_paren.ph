// a missing `)`: rustc's "unclosed delimiter" at the `(`, with a label where the parse gave up
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  let v = max(A[ctx.thread], 1.0    //~ error PH005 "unclosed delimiter: `(` has no `)`" label "unclosed delimiter"
  O[ctx.thread] = v    //~ chain "expected `)`"
}
