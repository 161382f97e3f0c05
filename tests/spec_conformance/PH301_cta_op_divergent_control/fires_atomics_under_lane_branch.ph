// "What needs every thread": "an atomic, load_acquire and store_release" run once per CTA (LANGUAGE
// §8, "Once-per-CTA operations"): the CTA meets at a barrier first, so every thread must reach them.
// pins: everyone.rule-control everyone.ops L8.cta-wide
@launch(128)
kernel k(C: tensor<i32>[64], F: tensor<f32>[64]) {
  if ctx.lane == 3 {
    let a = atomic_add(C[0], 1)        //~ error PH301 "`atomic_add`"
    let b = atomic_max(C[1], 7)        //~ error PH301 "`atomic_max`"
    let c = atomic_min(C[2], 7)        //~ error PH301 "`atomic_min`"
    let d = atomic_cas(C[3], 0, 1)     //~ error PH301 "`atomic_cas`"
    let e = atomic_add(F[0], 1.0)      //~ error PH301 "`atomic_add`"
    let f = load_acquire(C[4])         //~ error PH301 "`load_acquire`"
    store_release(C[5], 1)             //~ error PH301 "`store_release`"
  }
}
