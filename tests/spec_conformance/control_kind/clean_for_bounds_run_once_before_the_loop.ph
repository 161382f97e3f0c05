// "The control a statement runs under is as varying as the if and while conditions and the for
// bounds around it": a loop's bounds are around its body, not around themselves. They are
// evaluated once, before the first iteration, under the control around the loop, so collectives
// and atomics in them are fine where the loop itself starts in uniform control, even when a
// varying `break` lets lanes leave the loop early.
// pins: control.enclosing L9.3
@launch(128)
kernel k(A: tensor<i32>[128], C: tensor<i32>[1], O: tensor<i32>[128]) {
  var s = 0
  for i in range(0, sum<over ctx.thread>(A[ctx.thread])) {
    if ctx.lane == i {
      break
    }
    s += 1
  }
  for j in range(ctx.lane, max<over ctx.lane>(A[ctx.thread]), max<over ctx.lane>(A[ctx.thread]) + 1) {
    s += j
  }
  for k in range(ctx.lane, atomic_add(C[0], 0)) {
    s += 1
  }
  O[ctx.thread] = s
}
