// "Control": the body of a loop whose bounds start at ctx.lane runs under varying control, so a
// shuffle there may miss lanes that finished their loop.
// pins: lane.shuffle control.enclosing
@launch(128)
kernel k(A: tensor<i32>[1, 256], O: tensor<i32>[1, 128]) {
  var acc = 0
  for c in range(ctx.lane, 200, ctx.lanes) {
    acc += shfl<down 1>(A[0, c])      //~ error PH304
  }
  O[0, ctx.thread] = acc
}
