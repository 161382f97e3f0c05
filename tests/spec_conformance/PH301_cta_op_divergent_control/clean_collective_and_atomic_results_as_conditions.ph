// "Lane-level operations": op<over ctx.thread>(x) gives a uniform result; LANGUAGE §8: an atomic's
// or acquire load's result is uniform. Conditions on them keep the control uniform.
// pins: lane.cta-collective-result L8.atomic-result everyone.rule-control
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256], F: tensor<i32>[4]) {
  let total = sum<over ctx.thread>(A[0, ctx.thread])
  if total > 0.0 {
    barrier()
  }
  let any_neg = any<over ctx.thread>(A[0, ctx.thread] < 0.0)
  if any_neg {
    O[0 :+ 1, 0 :+ 256] = A[0 :+ 1, 0 :+ 256]
  }
  while load_acquire(F[0]) == 0 {
    barrier()
  }
  if atomic_add(F[1], 1) == 0 {
    store_release(F[2], 1)
  }
}
