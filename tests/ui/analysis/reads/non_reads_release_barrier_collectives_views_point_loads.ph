// LANGUAGE §9.5: non reads release barrier collectives views point loads
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], F: tensor<i32>[32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  F[ctx.lane] = 1
  store_release(F[0], 1)
  t[0, ctx.lane] = 1.0
  let s = sum<over ctx.thread>(t[0, ctx.thread % 32])
  let l = sum<over ctx.lane>(t[0, ctx.lane])
  let v = t[0 :+ 1, 0 :+ 16]
  let x = t[0, 3]
  let r = sum(t[0, 0 :+ 4])
  let e = elem(t[0, 4 :+ 4])
  O[0, ctx.lane] = t[0, ctx.lane]
  barrier()
}
