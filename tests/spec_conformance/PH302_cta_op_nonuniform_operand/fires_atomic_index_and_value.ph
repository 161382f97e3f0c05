// LANGUAGE §9.7: "an atomic's index and value" are scalar operands, and so are the element that
// load_acquire and store_release touch, and store_release's value (LANGUAGE §8: "all uniform").
// pins: L9.7a everyone.rule-operands
@launch(128)
kernel k(C: tensor<i32>[256]) {
  let a = atomic_add(C[ctx.thread], 1)      //~ error PH302
  let b = atomic_max(C[0], ctx.lane)        //~ error PH302
  let c = atomic_min(C[ctx.warp], 3)        //~ error PH302 "differs between warps"
  let d = atomic_cas(C[1], ctx.lane, 2)     //~ error PH302
  let e = load_acquire(C[ctx.lane])         //~ error PH302
  store_release(C[2], ctx.thread)           //~ error PH302
  C[3] = a + b + c + d + e
}
