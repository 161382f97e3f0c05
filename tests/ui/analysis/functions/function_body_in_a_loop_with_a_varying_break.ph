// function body in a loop with a varying break
fn sync() {
  barrier()                    //~ error PH301 PH301
}
fn count() -> i32 {
  var n = 0    //~ kind n varying
  n = 1
  return n
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  for i in range(0, 4) {    //~ kind i uniform
    sync()    //~ chain "inlined from "
    let c = count()    //~ kind c varying
    if ctx.lane == 0 {
      break    //~ chain "leave the loop"
    }
  }
  sync()
  if ctx.warp == 0 {
    return    //~ chain "warps return here"
  }
  sync()    //~ chain "inlined from "
}
