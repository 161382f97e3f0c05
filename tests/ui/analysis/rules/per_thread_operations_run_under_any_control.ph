// per thread operations run under any control
// per-thread-values.md, "What runs anywhere": scalar loads, arithmetic, scalar stores, if,
// for, while; LANGUAGE §8 adds runs (sum, elem, store)
@launch(256)
kernel k(A: tensor<f32>[8, 64], O: tensor<f32>[8, 64]) {
  var t: tile<f32>[8, 64] = A[0 :+ 8, 0 :+ 64]
  barrier()
  if ctx.lane == 0 {
    let x = A[ctx.warp, ctx.lane] * 2.0
    O[ctx.warp, ctx.lane] = x
    store(O[0, ctx.lane % 16 * 4 :+ 4], x)
    let s = sum(A[0, ctx.lane % 16 * 4 :+ 4])
    let e = elem(t[ctx.warp, 0 :+ 4])
    let y = t[0, ctx.lane]
    for i in range(0, ctx.lane) {
      var n = i
      while n > 0 {
        n -= 1
      }
    }
  }
}
