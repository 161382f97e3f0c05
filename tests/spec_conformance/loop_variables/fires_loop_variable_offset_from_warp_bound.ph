// "A loop variable is as varying as the loop's bounds": a warp-uniform lower bound makes the variable
// warp-uniform, rejected as a slice offset ("differs between warps"; the control is warp-uniform too).
// pins: kinds.loop-variable L9.2b L9.7c
@launch(256)
kernel k(A: tensor<f32>[16, 32], O: tensor<f32>[16, 32]) {
  for r in range(ctx.warp, 16, ctx.warps) {        //~ kind r warp-uniform
    O[r :+ 1, 0 :+ 32] = A[r :+ 1, 0 :+ 32]        //~ error PH301 PH302 PH302 "between warps"
  }
}
