// LANGUAGE §9.5: let view under varying control is no operation
@launch(256)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  if ctx.lane == 0 {
    let v = A[0 :+ 1, 0 :+ 32]
    let x = v[0, 1]
  }
}
