// A block reduction: a per-thread strided partial sum (varying), then a CTA collective at uniform
// control after the loop has closed; its result is uniform and stored by one thread.
// pins: lane.cta-collective lane.cta-collective-result ex.closed-branch
@launch(256)
kernel k(A: tensor<f32>[1, 4096], O: tensor<f32>[1, 1]) {
  var acc: f32 = 0.0                                //~ kind acc varying
  for i in range(ctx.thread, 4096, ctx.threads) {
    acc += A[0, i]
  }
  let total = sum<over ctx.thread>(acc)             //~ kind total uniform
  if ctx.thread == 0 {
    O[0, 0] = total
  }
}
