// PH506: of two codes allowed on one line, the one that silences nothing is reported, at its code
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  let x = A[ctx.thread]     // phobos-allow: PH501, PH503 //~ warning PH506 "`PH503`"
  O[ctx.thread] = A[ctx.thread]
}
