// per-thread-values.md, "What needs every thread": "Their scalar operands are uniform"; LANGUAGE §9.7:
// the scalar operands of a CTA-wide operation include "a scalar that an elementwise sweep broadcasts",
// wherever the sweep stands: inside `tmax`, or nested in a tile built-in's operand (`rowsum(t * x)`,
// `dot(a * s, b)`, `cumsum(where(t > x, ..))`), or in a computed tile passed to a function.
// pins: L9.7a L8.cta-wide
fn first(u: tile<f32>[32, 32]) -> f32 {
  return u[0, 0]
}

@launch(128)
kernel k(A: tensor<f32>[32, 32], O: tensor<f32>[32, 32], R: tensor<f32>[32, 1], y: f32) {
  var t: tile<f32>[32, 32] = A[0 :+ 32, 0 :+ 32]
  let x = A[0, ctx.lane]
  let w = A[1, ctx.warp]
  t = tmax(t, x)                                      //~ error PH302 "`x`, which differs between lanes"
  R[0 :+ 32, 0 :+ 1] = rowsum(t * x)                  //~ error PH302 "`rowsum` takes `x`"
  O[0 :+ 32, 0 :+ 32] = dot(t * w, t)                 //~ error PH302 "`w`, which differs between warps"
  O[0 :+ 32, 0 :+ 32] = cumsum(where(t > x, t, 0.0))  //~ error PH302
  O[0, ctx.lane] = first(exp(t * x))                  //~ error PH302
  O[0 :+ 32, 0 :+ 32] = dot(t * y, transpose(t + y))
  R[0 :+ 32, 0 :+ 1] = rowmax(tmax(t, y))
}
