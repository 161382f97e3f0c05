// LANGUAGE §9.3: "a return under K ... in a function, the rest of that function and of the loops
// inside it": control after the call is as it was, so a copy after it is fine.
// pins: L9.3d control.early-exit
fn clamp_lane(x: i32) -> i32 {
  if x > 15 {
    return 15
  }
  return x
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  let c = clamp_lane(ctx.lane)
  O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]
  O[0, c] = 1.0
}
