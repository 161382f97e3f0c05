// Functions may call functions (LANGUAGE §2); the innermost collective runs under the control of
// every caller, here a per-lane condition two calls up.
// pins: lane.lane-collective control.enclosing
fn inner(x: f32) -> f32 {
  return sum<over ctx.lane>(x)           //~ error PH305
}

fn outer(x: f32) -> f32 {
  return inner(x) * 2.0
}

@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  var v = A[0, ctx.thread]
  if ctx.lane < 8 {
    v = outer(v)
  }
  O[0, ctx.thread] = v
}
