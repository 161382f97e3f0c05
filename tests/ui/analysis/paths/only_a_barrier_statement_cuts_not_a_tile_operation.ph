// LANGUAGE §9.6: only a barrier statement cuts not a tile operation
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  u = u * 2.0
  let s = sum<over ctx.thread>(1.0)
  O[0 :+ 1, 0 :+ 32] = u
  O[0 :+ 1, 0 :+ 32] = t          //~ error PH303
}
