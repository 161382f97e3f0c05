// LANGUAGE §9.7: "Scalar operands of a CTA-wide operation include ... an atomic's index and
// value"; §6: the arguments of a call are evaluated before the inlined body runs. The atomic in
// the argument is one operation, reported once.
// pins: L9.7a L6.call
fn twice(x: i32) -> i32 {
  return x + x
}

@launch(64)
kernel k(C: tensor<i32>[64], O: tensor<i32>[64]) {
  O[ctx.thread] = twice(atomic_add(C[0], ctx.lane))    //~ error PH302
}
