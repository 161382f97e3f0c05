// atomics and release under divergent control ph301
@launch(256)
kernel k(C: tensor<i32>[4], F: tensor<i32>[4]) {
  if ctx.warp == 0 {
    let a = atomic_add(C[0], 1)       //~ error PH301 "`atomic_add` runs once per CTA"
    store_release(F[0], 1)            //~ error PH301 "`store_release` runs once per CTA"
  }
  if ctx.block.x == 0 {
    let b = atomic_min(C[1], 1)
    store_release(F[1], 1)
  }
}
