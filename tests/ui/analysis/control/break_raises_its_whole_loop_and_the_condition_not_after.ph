// LANGUAGE §9.3: break raises its whole loop and the condition not after
// c is assigned before the break, in a loop some lanes leave: varying (§9.1 with §9.3)
@launch(256)
kernel k(A: tensor<f32>[1, 64], F: tensor<i32>[4]) {
  var c = 0    //~ kind c varying
  for i in range(0, 4) {    //~ kind i uniform
    barrier()                  //~ error PH301 "`barrier()` runs once per CTA"
    c = c + 1
    if ctx.lane == 0 {
      break
    }
    barrier()                  //~ error PH301
  }
  barrier()
  var d = 0    //~ kind d uniform
  d = 1
  while load_acquire(F[0]) == 0 {      //~ error PH301 "`load_acquire` runs once per CTA"
    if ctx.lane == 0 {
      break
    }
  }
  barrier()
}
