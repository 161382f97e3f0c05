// LANGUAGE §9.7: a let view at uniform offsets is fine wherever it is written, and a per-thread point
// read through it runs anywhere (per-thread-values.md: "reads it with a point subscript").
// pins: L9.7b ex.point-subscript
@launch(128)
kernel k(A: tensor<f32>[8, 64], O: tensor<f32>[1, 128], n: i32) {
  let block = A[ctx.block.x % 8 :+ 1, n % 32 :+ 32]
  if ctx.lane < 8 {
    let part = A[0 :+ 1, 8 :+ 8]
    O[0, ctx.thread] = part[0, ctx.lane] + block[0, ctx.lane]
  }
}
