// "What needs every thread": barrier() is one of the operations that "run only under uniform
// control: every thread must reach them" (DESIGN.md's own example of PH301).
// pins: everyone.rule-control everyone.ops
@launch(256)
kernel k(O: tensor<f32>[256]) {
  if ctx.lane == 0 {
    barrier()              //~ error PH301 "`barrier()` runs once per CTA"
  }
  O[ctx.thread] = 1.0
}
