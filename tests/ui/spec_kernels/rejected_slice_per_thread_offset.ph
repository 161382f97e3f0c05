// per-thread-values.md, "A slice at a per-thread offset": rejected. A slice is a tile owned by
// the CTA, so its offsets must be the same in every thread; the page says the slice "takes a
// value which differs between lanes".
// Expected: PH302 on the slice ("`slice` takes `ctx.lane`, which differs between lanes"). A
// thread that wants its own element reads it with the point subscript A[0, ctx.lane].
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var u = A[0, ctx.lane :+ 1]          //~ error PH302 "`slice` takes `ctx.lane`, which differs between lanes"
  O[0 :+ 1, 0 :+ 1] = u
}
