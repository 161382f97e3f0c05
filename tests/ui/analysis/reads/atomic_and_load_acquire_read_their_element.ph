// LANGUAGE §9.5: atomic and load acquire read their element
@launch(256)
kernel k(C: tensor<i32>[32], F: tensor<i32>[32]) {
  C[ctx.lane] = 1
  let a = atomic_add(C[0], 1)                //~ error PH303 "`atomic_add` reads `C`"
  barrier()
  C[ctx.lane] = 1
  let m = atomic_max(C[0], 1)                //~ error PH303 "`atomic_max` reads `C`"
  barrier()
  C[ctx.lane] = 1
  let c = atomic_cas(C[0], 1, 2)             //~ error PH303 "`atomic_cas` reads `C`"
  barrier()
  F[ctx.lane] = 1
  let f = load_acquire(F[0])                 //~ error PH303 "`load_acquire` reads `F`"
}
