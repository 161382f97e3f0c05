// LANGUAGE §9.1: shadowing var is a separate binding
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var s = 0    //~ kind s uniform
  if ctx.lane == 0 {
    var s = 5    //~ kind s varying
  }
}
