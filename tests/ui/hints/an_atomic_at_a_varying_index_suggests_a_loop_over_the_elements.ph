// an atomic at a per-thread index (a histogram): the help loops over the elements with an index
// the whole CTA shares, which checks clean (tests/diagnostics/test_help_code.py)
@launch(64)
kernel k(A: tensor<f32>[64], B: tensor<i32>[64], H: tensor<f32>[16]) {
  let b = B[ctx.thread]    //~ chain "`b` does"
  atomic_add(H[b], A[ctx.thread])    //~ error PH302 PH302 help "`for e in range(0, 16) { atomic_add(H[e], sum<over ctx.thread>(where(b == e, A[ctx.thread], 0.0))) }`"
}
