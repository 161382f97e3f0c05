// LANGUAGE §9.3: return in a function raises the rest of that function only
fn early(a: i32) {
  if ctx.lane == a {
    return
  }
  barrier()                    //~ error PH301 "`barrier()` runs once per CTA"
}
fn loops() -> i32 {
  for i in range(0, 4) {
    barrier()                  //~ error PH301
    if ctx.lane == i {
      return i
    }
  }
  barrier()                    //~ error PH301
  return 7
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  for i in range(0, 4) {
    barrier()
    early(i)
    barrier()
  }
  let q = loops()    //~ kind q varying
  barrier()
}
