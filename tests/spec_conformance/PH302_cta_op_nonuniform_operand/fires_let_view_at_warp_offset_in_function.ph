// LANGUAGE §9.7: a let view's offsets are checked where it is written, whether or not it is used, also
// inside an inlined function; a warp-uniform offset "differs between warps".
// pins: L9.7b L9.7c everyone.rule-operands
fn peek(T: tile<f32>[4, 32], r: i32) -> f32 {
  let row = T[r :+ 1, 0 :+ 32]       //~ error PH302 "differs between warps"
  return T[0, 0]
}

@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[1, 128]) {
  var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  let x = peek(t, ctx.warp)
  let y = peek(t, 1)
  O[0, ctx.thread] = x + y
}
