// kinds of loop bindings are listed
@launch(32)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[8, 32]) {
  var t: tile<f32>[1, 32] = 0.0

  for r in range(0, 4) {    //~ kind r uniform
    let a = r * 2    //~ kind a uniform
    var b = 0    //~ kind b warp-uniform
    b = a + ctx.warp
  }
}
