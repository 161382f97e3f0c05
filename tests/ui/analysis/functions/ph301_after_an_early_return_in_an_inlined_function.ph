// ph301 after an early return in an inlined function: the chain of an error inside an inlined
// function has an "inlined from" step naming the call
fn early(a: i32) {
  if ctx.lane == a {
    return
  }
  barrier()                        //~ error PH301
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  early(3)    //~ chain "inlined from 11:3"
}
