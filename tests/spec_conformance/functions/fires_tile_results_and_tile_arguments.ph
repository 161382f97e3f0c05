// A function's tile result is filled by its `return`, and a computed tile argument is swept into
// a tile of its own before the call: both are CTA-wide operations ("What needs every thread"),
// which read the tiles they name (LANGUAGE §9.5) and need uniform control.
// pins: everyone.ops everyone.rule-control everyone.rule-barrier L9.5
fn twice(t: tile<f32>[1, 32]) -> tile<f32>[1, 32] {
  return t * 2.0 //~ error PH303 PH301
}
fn first(t: tile<f32>[1, 32]) -> f32 {
  return t[0, 0]
}
@launch(64)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[64]) {
  var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  u[0, ctx.lane] = 1.0
  var v: tile<f32>[1, 32] = twice(u)
  O[ctx.thread] = first(u + 1.0) //~ error PH303 "`elementwise sweep` reads `u`"
  barrier()
  O[ctx.thread] = first(twice(u))
  if ctx.lane == 0 {
    O[ctx.thread] = first(v * 3.0) //~ error PH301
    var w: tile<f32>[1, 32] = twice(v) //~ error PH301 "`tile copy`"
  }
}
