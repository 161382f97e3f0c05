// "The control a statement runs under is as varying as the if and while conditions": the condition's
// kind counts, even when the branch is taken by all threads at run time (ctx.lane >= 0).
// pins: control.enclosing
@launch(128)
kernel k(O: tensor<f32>[128]) {
  if ctx.lane >= 0 {
    barrier()                     //~ error PH301
  }
  O[ctx.thread] = 1.0
}
