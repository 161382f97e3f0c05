// "Lane-level operations": a CTA collective's result is uniform; LANGUAGE §8: so is an atomic's or
// an acquire load's. Each may be a slice offset or a broadcast scalar.
// pins: lane.cta-collective-result L8.atomic-result everyone.rule-operands
@launch(128)
kernel k(A: tensor<f32>[4, 64], C: tensor<i32>[128], O: tensor<f32>[4, 64]) {
  let lo = min<over ctx.thread>(C[ctx.thread])      //~ kind lo uniform
  let slot = atomic_add(C[0], 8)                    //~ kind slot uniform
  let r = load_acquire(C[1])                        //~ kind r uniform
  O[r :+ 1, slot :+ 8] = A[0 :+ 1, lo :+ 8]
  var t: tile<f32>[1, 8] = A[1 :+ 1, 0 :+ 8]
  t = t * f32(lo + slot)
  O[1 :+ 1, 0 :+ 8] = t
}
