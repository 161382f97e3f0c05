// LANGUAGE §9.8: kinds belong to runs too; a run read at a uniform offset is uniform, at a per-lane
// offset varying, and sum(run) or a run element takes the run's kind (LANGUAGE §8: join of operands).
// pins: L9.8 L8.per-thread kinds.expression
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256]) {
  let ru = elem(A[0, 0 :+ 4])                    //~ kind ru uniform
  let rv = elem(A[0, ctx.lane * 4 :+ 4])         //~ kind rv varying
  let su = sum(A[0, 8 :+ 8] * 2.0)               //~ kind su uniform
  let sv = sum(A[0, ctx.lane * 4 :+ 4] * ru)     //~ kind sv varying
  let e0 = ru[0]                                 //~ kind e0 uniform
  let e1 = rv[1]                                 //~ kind e1 varying
  O[0 :+ 1, 0 :+ 4] = A[0 :+ 1, 0 :+ 4] * (su + e0)
  store(O[0, 4 + ctx.lane * 4 :+ 4], rv + sv + e1)
}
