// LANGUAGE §9.1: "A var has one kind for the whole kernel", so a var that is uniform where it is used
// but assigned a varying value later (outside any loop) is varying at the use as well.
// pins: L9.1 kinds.var
@launch(128)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var off = 4                                       //~ kind off varying
  O[0 :+ 1, off :+ 8] = A[0 :+ 1, 0 :+ 8]          //~ error PH302
  off = ctx.lane
  O[0, off] = 1.0
}
