// LANGUAGE §2: inlined at every call. The same function body is fine at a uniform call site and
// rejected at the call under per-thread control (one diagnostic, for the bad call).
// pins: everyone.rule-control L9.3
fn sync_and_copy(S: tensor<f32>[R, C], D: tensor<f32>[R, C]) {
  barrier()                                   //~ error PH301
  D[0 :+ 1, 0 :+ 32] = S[0 :+ 1, 0 :+ 32]     //~ error PH301
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  sync_and_copy(A, O)
  if ctx.warp == 1 {
    sync_and_copy(A, O)
  }
}
