// LANGUAGE §9.1 with §9.3: a var assigned after a varying continue is assigned under varying control,
// so it is varying (the threads that continued kept the old value).
// pins: L9.3b L9.1
@launch(128)
kernel k(A: tensor<f32>[4, 64], O: tensor<f32>[4, 64]) {
  var last = 0                                    //~ kind last varying
  for r in range(0, 4) {
    if A[r, ctx.lane] > 0.0 {
      continue
    }
    last = r
  }
  O[0 :+ 1, last :+ 8] = A[0 :+ 1, 0 :+ 8]        //~ error PH302
}
