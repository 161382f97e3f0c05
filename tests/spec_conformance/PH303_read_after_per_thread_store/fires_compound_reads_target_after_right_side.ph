// LANGUAGE §6: "a compound assignment then reads the target, then writes it", after the right side.
// `mark` stores per thread into the tile it is given and returns without a barrier; the compound
// assignment's read of `u` comes after that call, so it reads elements other threads just stored.
// With the barrier at the end of `marked`, the same statement is fine.
// pins: L6.assign L9.6-grain L9.5
fn mark(u: tile<f32>[1, 32]) -> f32 {
  u[0, ctx.lane] = 1.0
  return 2.0
}

fn marked(u: tile<f32>[1, 32]) -> f32 {
  u[0, ctx.lane] = 1.0
  barrier()
  return 2.0
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  u += mark(u)                    //~ error PH303
  u += marked(u)
  O[0 :+ 1, 0 :+ 32] = u
}
