// LANGUAGE §9.3: return in a kernel raises the rest and enclosing loops
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  barrier()
  for o in range(0, 2) {
    barrier()                  //~ error PH301 "`barrier()` runs once per CTA"
    for i in range(0, 2) {
      barrier()                //~ error PH301
      if ctx.lane == 0 {
        return
      }
    }
  }
  barrier()                    //~ error PH301
}
