// PH502 stays quiet: a var assigned again (plainly or by a compound assignment), a tile var,
// a var without an initializer; a var never read at all is PH501's alone
@launch(64)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var x = A[0, ctx.thread]
  x = x + 1.0
  var acc: f32 = 0.0
  acc += x
  var t: tile<f32>[1, 64] = A[0 :+ 1, 0 :+ 64]
  var later: f32
  later = acc
  var unread = 3                            //~ warning PH501
  O[0 :+ 1, 0 :+ 64] = t
  barrier()
  O[0, ctx.thread] = later
}
