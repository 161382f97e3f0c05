// An inlined function's shuffle runs under its caller's control: here a while loop whose condition
// differs between lanes.
// pins: lane.shuffle control.enclosing
fn swap_pair(x: f32) -> f32 {
  return shfl<xor 1>(x)          //~ error PH304
}

@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var v = A[0, ctx.thread]
  while v > 1.0 {
    v = swap_pair(v) * 0.5
  }
  O[0, ctx.thread] = v
}
