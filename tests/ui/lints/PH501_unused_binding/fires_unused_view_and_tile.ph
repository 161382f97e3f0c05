// PH501: a view and a tile var that are never read
@launch(64)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  let row = A[0 :+ 1, 0 :+ 64]              //~ warning PH501 "`row`"
  var t: tile<f32>[1, 64] = 0.0             //~ warning PH501
  O[0, ctx.thread] = A[0, ctx.thread]
}
