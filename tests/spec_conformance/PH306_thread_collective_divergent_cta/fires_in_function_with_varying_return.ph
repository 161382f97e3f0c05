// LANGUAGE §9.3: "in a function, the rest of that function and of the loops inside it": a varying
// return inside a function's loop raises that loop, so its CTA collective is rejected.
// pins: lane.cta-collective L9.3d control.early-exit
fn scan_rows(x: i32, A: tensor<f32>[R, C]) -> f32 {
  var acc = 0.0
  for i in range(0, 4) {
    acc += sum<over ctx.thread>(A[i, ctx.thread])   //~ error PH306
    if x == i {
      return acc
    }
  }
  return acc
}

@launch(256)
kernel k(A: tensor<f32>[4, 256], O: tensor<f32>[1, 256]) {
  let v = scan_rows(ctx.lane, A)
  let after = sum<over ctx.thread>(v)
  O[0, ctx.thread] = after
}
