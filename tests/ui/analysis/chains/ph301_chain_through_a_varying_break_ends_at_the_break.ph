// ph301 chain through a varying break ends at the break
@launch(256)
kernel k(A: tensor<f32>[1, 32]) {
  for i in range(0, 4) {
    barrier()            //~ error PH301 label "lanes still in the loop"
    if ctx.lane == 0 {    //~ chain "`ctx.lane`"
      break    //~ chain "leave the loop"
    }
  }
  barrier()
}
