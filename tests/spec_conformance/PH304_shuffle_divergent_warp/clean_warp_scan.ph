// An inclusive scan across a warp: shuffles up under uniform loop bounds, with the per-lane choice
// made by `where` after the shuffle (the fix PH304's help suggests), not by a branch around it.
// pins: lane.shuffle lane.shuffle-result
@launch(128)
kernel k(A: tensor<i32>[1, 128], O: tensor<i32>[1, 128]) {
  var v = A[0, ctx.thread]
  for s in range(0, 5) {
    let d = 1 << s                    //~ kind d uniform
    let up = shfl<up d>(v)            //~ kind up varying
    v = where(ctx.lane >= d, v + up, v)
  }
  O[0, ctx.thread] = v
}
