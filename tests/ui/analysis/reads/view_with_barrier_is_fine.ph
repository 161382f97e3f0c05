// LANGUAGE §9.5: view with barrier is fine
@launch(256)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  let v = t[0 :+ 1, 0 :+ 32]
  v[0, ctx.lane] = 1.0
  barrier()
  O[0 :+ 1, 0 :+ 32] = v
}
