// LANGUAGE §9.5: "distinct tensor parameters do not alias", also when they reach the same-named
// parameter of inlined functions: the per-thread store goes to A, the copy reads O.
// pins: L9.5
fn mark(B: tensor<f32>[R, C]) {
  B[0, ctx.lane] = 1.0
}

fn copy_out(B: tensor<f32>[R, C], D: tensor<f32>[R, C]) {
  D[0 :+ 1, 0 :+ 32] = B[0 :+ 1, 0 :+ 32]
}

@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], P: tensor<f32>[1, 32]) {
  mark(A)
  copy_out(O, P)
}
