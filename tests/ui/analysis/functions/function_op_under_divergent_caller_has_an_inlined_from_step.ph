// function op under divergent caller has an inlined from step
// one diagnostic per inlined copy under divergent control: the two call sites in branches
fn sync() {
  barrier()                    //~ error PH301 PH301
}
fn twice() {
  sync()
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  sync()
  if ctx.lane == 0 {    //~ chain "`ctx.lane`"
    sync()    //~ chain "inlined from 13:5"
  }
  if ctx.warp == 0 {    //~ chain "`ctx.warp`"
    twice()
  }
}
