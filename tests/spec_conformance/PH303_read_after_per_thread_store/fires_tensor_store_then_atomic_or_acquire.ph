// LANGUAGE §9.5: a CTA-wide operation reads "the element an atomic or load_acquire touches"; the
// tensor was stored per thread ("A buffer (a tensor or a shared tile)").
// pins: L9.5 everyone.rule-barrier
@launch(128)
kernel k(C: tensor<i32>[128]) {
  C[ctx.thread] = 1
  let a = atomic_add(C[0], 1)         //~ error PH303 "`atomic_add` reads `C`"
  barrier()
  C[ctx.thread] = 2
  let b = load_acquire(C[1])          //~ error PH303 "`load_acquire` reads `C`"
  barrier()
  C[ctx.thread] = 3
  let c = atomic_cas(C[2], a, b)      //~ error PH303
}
