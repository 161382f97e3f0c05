// return in a loop
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  for i in range(0, 4) {
    barrier()              //~ error PH301 "`barrier()` runs once per CTA" label "lanes that have not returned"
    if ctx.lane == 0 {
      return    //~ chain "return here"
    }
    barrier()              //~ error PH301 label "lanes that have not returned"
  }
  barrier()                //~ error PH301 label "lanes that have not returned"
}
