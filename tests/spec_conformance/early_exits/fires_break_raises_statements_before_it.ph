// LANGUAGE §9.3: a break under K raises "every statement of its loop, including those before it
// (later iterations run without the threads that left)".
// pins: L9.3a control.early-exit
@launch(128)
kernel k(A: tensor<f32>[8, 128], O: tensor<f32>[8, 128]) {
  for r in range(0, 8) {
    let s = sum<over ctx.lane>(A[r, ctx.thread])     //~ error PH305
    if A[r, ctx.thread] > s {
      break
    }
  }
}
