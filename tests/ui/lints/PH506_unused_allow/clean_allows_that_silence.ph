// PH506 stays quiet: each allow silences a warning on its line, or on the next line
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[1], P: tensor<f32>[1]) {
  let unused = A[0]   // phobos-allow: PH501 -- kept for a later change
  // phobos-allow: PH502 -- the next line
  var y = A[1]
  var z = A[2]        // phobos-allow: PH502
  if ctx.thread == 0 {
    O[0] = z
  }
  // phobos-allow: PH504 -- the test measures how many updates survive
  P[0] += y
}
