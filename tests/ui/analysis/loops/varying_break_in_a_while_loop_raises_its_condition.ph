// varying break in a while loop raises its condition
@launch(256)
kernel k(F: tensor<i32>[4]) {
  while load_acquire(F[0]) == 0 {      //~ error PH301 "`load_acquire` runs once per CTA"
    if ctx.lane == 0 {
      break
    }
  }
  let f = load_acquire(F[1])
}
