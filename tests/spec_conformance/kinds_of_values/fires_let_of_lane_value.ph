// LANGUAGE §9.2: a let has the kind of its initializer, so a let of a per-lane load is varying and is
// no scalar for an elementwise sweep to broadcast.
// pins: L9.2a everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  let mine = A[0, ctx.lane]          //~ kind mine varying
  let scaled = mine * 2.0            //~ kind scaled varying
  O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32] * scaled     //~ error PH302 "`scaled`"
}
