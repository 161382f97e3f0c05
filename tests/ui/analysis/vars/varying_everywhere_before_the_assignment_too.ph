// LANGUAGE §9.1: varying everywhere before the assignment too
// x is used as a slice offset before the assignment that makes it varying
@launch(256)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var x = 0
  var t: tile<f32>[1, 32] = A[0 :+ 1, x :+ 32]     //~ error PH302 "`slice` takes `x`, which differs between lanes"
  O[0 :+ 1, 0 :+ 32] = t
  x = ctx.lane    //~ chain "`ctx.lane`"
}
