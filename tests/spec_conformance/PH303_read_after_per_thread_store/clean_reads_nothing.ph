// LANGUAGE §9.5: "store_release, barrier(), CTA collectives and let views read nothing"; a plain `=`
// sweep or copy INTO the stored buffer reads only its sources.
// pins: L9.5
@launch(128)
kernel k(A: tensor<f32>[2, 32], C: tensor<i32>[128], O: tensor<f32>[2, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  var u: tile<f32>[1, 32] = A[1 :+ 1, 0 :+ 32]
  C[ctx.thread] = 1
  store_release(C[0], 2)
  t[0, ctx.lane] = 1.0
  let v = t[0 :+ 1, 0 :+ 16]
  let total = sum<over ctx.thread>(t[0, ctx.lane])
  t = u * total
  t = A[0 :+ 1, 0 :+ 32]
  O[0 :+ 1, 0 :+ 32] = u
}
