// LANGUAGE §9.2: a function returning only constants, but under a per-lane condition, has a varying
// result: rejected as a slice offset.
// pins: L9.2d everyone.rule-operands
fn pick(x: i32) -> i32 {
  if x > 3 {
    return 8
  }
  return 0
}

@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  let off = pick(ctx.lane)
  O[0 :+ 1, off :+ 8] = A[0 :+ 1, 0 :+ 8]      //~ error PH302
}
