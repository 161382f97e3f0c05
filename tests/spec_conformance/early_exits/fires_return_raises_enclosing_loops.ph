// LANGUAGE §9.3: a return under K in a kernel raises "the rest of the kernel and every statement of
// each loop that encloses it", the statements before it in those loops included.
// pins: L9.3c control.early-exit
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  for r in range(0, 4) {
    barrier()                          //~ error PH301
    for c in range(0, 4) {
      if A[c, ctx.lane] > 1.0 {
        return
      }
    }
  }
  barrier()                            //~ error PH301
}
