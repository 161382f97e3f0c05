// PH214: allows of an error, of a note, of an unknown code, and of nothing are errors
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  O[ctx.thread] = A[ctx.thread]   // phobos-allow: PH301 //~ error PH214 "error of the language"
  O[ctx.thread] = 1.0   // phobos-allow: PH599 //~ error PH214 "not a code"
  O[ctx.thread] = 2.0   // phobos-allow: unused //~ error PH214 "not a diagnostic code"
  O[ctx.thread] = 3.0   // phobos-allow: //~ error PH214 "names no code"
}
