// PH506: an allow on a line with no such warning, and one before a clean line
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  let x = A[ctx.thread]   // phobos-allow: PH501 -- kept //~ warning PH506 "`PH501` is allowed here"
  // phobos-allow: PH502 //~ warning PH506 "next line"
  O[ctx.thread] = x
}
