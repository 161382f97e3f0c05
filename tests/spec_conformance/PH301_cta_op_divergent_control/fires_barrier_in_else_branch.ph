// "Control": the else branch of `if ctx.thread < 64` runs under the same varying condition, so a
// barrier there is reached by only some threads (LANGUAGE §9.3).
// pins: control.enclosing everyone.rule-control L9.3
@launch(256)
kernel k(O: tensor<f32>[256]) {
  if ctx.thread < 64 {
    O[ctx.thread] = 1.0
  } else {
    barrier()              //~ error PH301
  }
}
