// LANGUAGE §6: "a call, built-in or generic call evaluates its arguments left to right, then
// itself (an inlined function's body runs there)"; §8: an atomic runs once per CTA and its result
// is uniform. The atomic in the argument is one operation at its place before the call, under the
// lane branch, and is reported once.
// pins: L6.call L8.cta-wide
fn keep(x: i32, C: tensor<i32>[64]) {
  C[1] = x
}

@launch(64)
kernel k(C: tensor<i32>[64]) {
  if ctx.lane == 0 {
    keep(atomic_add(C[0], 1), C)    //~ error PH301
  }
}
