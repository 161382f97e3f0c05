// LANGUAGE §9.3: continue raises the rest of the body only
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var before = 0    //~ kind before uniform
  var after = 0    //~ kind after varying
  for i in range(0, 4) {
    barrier()
    before = 1
    if ctx.block.x == 0 {
      if ctx.lane == 0 {
        continue
      }
      barrier()                //~ error PH301 "`barrier()` runs once per CTA" label "lanes that did not skip the rest of the iteration"
    }
    barrier()                  //~ error PH301 label "lanes that did not skip the rest of the iteration"
    after = 1
  }
  barrier()
}
