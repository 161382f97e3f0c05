// LANGUAGE §9.3: uniform break after a varying continue is varying
// the break runs under the control the continue raised, so it raises the whole loop
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  for i in range(0, 4) {
    barrier()                  //~ error PH301
    if ctx.lane == 0 {
      continue
    }
    if i == 2 {
      break
    }
  }
  barrier()
}
