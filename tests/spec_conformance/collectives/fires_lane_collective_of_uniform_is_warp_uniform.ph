// LANGUAGE §9.2: "A lane collective's result is warp-uniform ... whatever their operand": even over a
// uniform value, so it is no uniform slice offset ("differs between warps").
// pins: L9.2c lane.lane-collective-result L9.7c
@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64], n: i32) {
  let m = max<over ctx.lane>(n)              //~ kind m warp-uniform
  O[0 :+ 1, m :+ 8] = A[0 :+ 1, 0 :+ 8]      //~ error PH302 "differs between warps"
}
