// LANGUAGE §9.5: functions store and read the callers buffers
fn put(x: tile<f32>[1, 32]) {
  x[0, ctx.lane] = 1.0
}
fn copy_out(S: tensor<f32>[1, 32], D: tensor<f32>[1, 32]) {
  D[0 :+ 1, 0 :+ 32] = S[0 :+ 1, 0 :+ 32]     //~ error PH303 "reads `S`" note "`S` is parameter `S` of `copy_out`, bound to `A` by the call at 15:3"
}
@launch(256)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 32]
  put(t[1 :+ 1, 0 :+ 32])
  O[0 :+ 4, 0 :+ 32] = t                       //~ error PH303 "reads `t`"
  barrier()
  A[0, ctx.lane] = 1.0
  copy_out(A[0 :+ 1, 0 :+ 32], O[1 :+ 1, 0 :+ 32])
}
