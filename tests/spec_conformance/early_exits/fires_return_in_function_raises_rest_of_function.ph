// LANGUAGE §9.3: "in a function, the rest of that function": after a per-lane return a shuffle in the
// same function is rejected, while the caller, after the call, is at uniform control again.
// pins: L9.3d control.early-exit lane.shuffle
fn half(x: f32) -> f32 {
  if x < 0.0 {
    return 0.0
  }
  return shfl<xor 1>(x)           //~ error PH304
}

@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  let v = half(A[0, ctx.thread])
  let w = shfl<xor 1>(v)
  O[0, ctx.thread] = w
}
