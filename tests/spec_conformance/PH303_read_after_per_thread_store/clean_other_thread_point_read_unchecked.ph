// "a thread reading what another thread stored needs one all the same, and the compiler does not
// check it." NOT CHECKED BY DESIGN: this kernel races (lane i reads lane i+1's store without a
// barrier), and the analyzer must stay silent; the simulator catches it at run time (LANGUAGE §9.8).
// pins: ex.other-thread-unchecked L9.8
@launch(32)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  t[0, ctx.lane] = A[0, ctx.lane]
  O[0, ctx.lane] = t[0, (ctx.lane + 1) % 32]
}
