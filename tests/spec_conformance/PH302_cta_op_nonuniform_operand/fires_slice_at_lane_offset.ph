// per-thread-values.md, "A slice at a per-thread offset" (the page's kernel): "A slice is a tile,
// owned by the CTA, so its offsets must be the same in every thread". "The compiler reports that the
// slice takes a value which differs between lanes."
// pins: ex.slice-offset everyone.rule-operands everyone.messages
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var u = A[0, ctx.lane :+ 1]    //~ error PH302 "takes `ctx.lane`, which differs between lanes"
  O[0 :+ 1, 0 :+ 1] = u
}
