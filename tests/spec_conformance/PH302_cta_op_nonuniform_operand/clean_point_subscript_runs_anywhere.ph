// per-thread-values.md, "A slice at a per-thread offset": "A thread that wants its own element reads
// it with a point subscript, A[0, ctx.lane], which is a scalar load and runs anywhere."
// pins: ex.point-subscript anywhere.ops
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  let u = A[0, ctx.lane]           //~ kind u varying
  O[0, ctx.lane] = u
}
