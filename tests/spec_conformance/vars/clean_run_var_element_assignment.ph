// LANGUAGE §5: `r[k] = e` on a run var sets one element; it is an assignment to the var (§9.1): a
// per-thread element makes the whole run varying. A run var assigned only uniform values stays uniform.
// pins: L9.1 kinds.var L9.8
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  var r = elem(A[0, 0 :+ 4])               //~ kind r varying
  r[2] = A[0, ctx.lane]
  var u = elem(A[0, 4 :+ 4])               //~ kind u uniform
  u[0] = 1.0
  store(O[0, ctx.lane * 4 :+ 4], r + u)
}
