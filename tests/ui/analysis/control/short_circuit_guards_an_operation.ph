// LANGUAGE §9.3: short circuit guards an operation
@launch(256)
kernel k(A: tensor<f32>[1, 64], F: tensor<i32>[4]) {
  let q = ctx.lane == 0 && load_acquire(F[0]) == 1     //~ error PH301 "`load_acquire` runs once per CTA" label "reached only by the lanes where the left side of `&&`/`||` lets it run"
  let u = ctx.block.x == 0 && load_acquire(F[0]) == 1
  let w = ctx.warp == 0 || load_acquire(F[0]) == 1     //~ error PH301 label "reached only by the warps where the left side of `&&`/`||` lets it run"
  if ctx.block.x == 0 || ctx.lane == 0 {
    barrier()                                          //~ error PH301
  }
  if ctx.lane == 0 || ctx.block.x == 0 {
    barrier()                                          //~ error PH301 label "reached only by the lanes where the left side of `&&`/`||` lets it run"
  }
}
