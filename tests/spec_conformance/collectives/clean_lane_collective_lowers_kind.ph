// "The last line shows that a collective lowers the kind again: a fold over the whole warp leaves
// every lane with the same result." (LANGUAGE §9.2: warp-uniform "whatever their operand".)
// pins: kinds.collective-lowers lane.lane-collective-result L9.2c
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 4], n: i32) {
  let x = A[0, ctx.thread]                //~ kind x varying
  let s = sum<over ctx.lane>(x)           //~ kind s warp-uniform
  let u = max<over ctx.lane>(n)           //~ kind u warp-uniform
  if s > 0.0 {
    let again = sum<over ctx.lane>(s)     //~ kind again warp-uniform
    O[0, ctx.warp] = again + f32(u)
  }
}
