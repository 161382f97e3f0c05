// "Control": "The control a statement runs under is as varying as ... the for bounds around it."
// A loop from ctx.lane runs a different number of times in each lane.
// pins: control.enclosing everyone.rule-control
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  for k in range(ctx.lane, 256, ctx.lanes) {
    O[0, k] = A[0, k]
    barrier()              //~ error PH301
  }
}
