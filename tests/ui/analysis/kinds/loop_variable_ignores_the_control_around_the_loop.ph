// LANGUAGE §9.2: loop variable ignores the control around the loop
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  if ctx.lane == 0 {
    for i in range(0, 4) {    //~ kind i uniform
      let j = i    //~ kind j uniform
    }
  }
}
