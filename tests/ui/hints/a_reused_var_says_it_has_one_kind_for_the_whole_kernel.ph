// a reused var says it has one kind for the whole kernel
@launch(128)
kernel reuse(X: tensor<f32>[128], Y: tensor<f32>[128], iters: i32) {
  var n = ctx.thread % 4
  Y[ctx.thread] = X[ctx.thread] * f32(n)
  n = iters
  for it in range(0, n) {
    barrier()    //~ error PH301 note "`n` is a `var`, so it has one kind for the whole kernel, the most varying of all its assignments (LANGUAGE §9.1): assigning it a uniform value at 6:3 does not make it uniform there; give that value a `let` of its own"
  }
}
