// "A var that starts uniform and is assigned ctx.lane in a later iteration is varying everywhere";
// LANGUAGE §9.1: "everywhere, before the assignment too". The first use as an offset is rejected.
// pins: kinds.var-later-iteration L9.1 everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[4, 64], O: tensor<f32>[4, 64]) {
  var off = 0                       //~ kind off varying
  for r in range(0, 4) {
    O[r :+ 1, off :+ 8] = A[r :+ 1, 0 :+ 8]      //~ error PH302 "takes `off`"
    off = ctx.lane
  }
}
