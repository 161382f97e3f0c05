// "Control": once a lane-strided loop has closed, control is uniform again (the page's lanes matvec
// reduces after such a loop).
// pins: control.enclosing ex.closed-branch
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  var acc: f32 = 0.0
  for c in range(ctx.lane, 256, ctx.lanes) {
    acc += A[0, c]
  }
  let total = sum<over ctx.thread>(acc)
  barrier()
  O[0 :+ 1, 0 :+ 256] = A[0 :+ 1, 0 :+ 256] * total
}
