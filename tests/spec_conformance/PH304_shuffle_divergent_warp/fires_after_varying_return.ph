// "Control": a return under varying control makes the rest of the kernel varying.
// pins: lane.shuffle control.early-exit L9.3c
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128], n: i32) {
  if ctx.thread >= n {
    return
  }
  let v = shfl<idx 3>(A[0, ctx.thread])    //~ error PH304
  O[0, ctx.thread] = v
}
