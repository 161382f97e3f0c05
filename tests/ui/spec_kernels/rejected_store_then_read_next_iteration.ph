// Not a kernel from the page: built from its sentence under "A per-thread store and a CTA-wide
// read": "The check follows loops: a store in one iteration and a tile read at the top of the
// next also need a barrier between them." Each lane stores into t at the bottom of iteration r;
// the copy at the top of iteration r + 1 reads t with no barrier() on the path through the
// loop's back edge (LANGUAGE §9.6: r < r' both in range(0, 4), so z3 cannot drop the path).
// Expected: PH303 on the copy, its chain naming the store and the back edge.
@launch(32)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[1, 32] = 0.0
  for r in range(0, 4) {    //~ chain "back edge"
    O[r :+ 1, 0 :+ 32] = t          //~ error PH303 "`tile copy` reads `t` after a per-thread store to it with no `barrier()` between"
    t[0, ctx.lane] = A[r, ctx.lane]    //~ chain "stores to `t`"
  }
}
