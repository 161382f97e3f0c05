// LANGUAGE §9.2: function called under varying control returns varying
fn one() -> i32 {
  var y = 0    //~ kind y uniform varying
  y = 1
  return y
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  let a = one()    //~ kind a uniform
  if ctx.lane == 0 {
    let z = one()    //~ kind z varying
  }
}
