// per-thread-values.md, "A per-thread store and a CTA-wide read": rejected. Each lane stores its
// own element of the shared tile t, and the copy to O reads t as a whole with no barrier() in
// between; the page says "the store to O, a CTA-wide read of t, comes after a per-thread store
// to t with no barrier() between".
// Expected: PH303 on the copy ("`tile copy` reads `t` after a per-thread store to it with no
// `barrier()` between"), its chain showing the store `t[0, ctx.lane] = 1.0`.
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.lane] = 1.0
  O[0 :+ 1, 0 :+ 32] = t          //~ error PH303 "`tile copy` reads `t` after a per-thread store to it with no `barrier()` between"
}
