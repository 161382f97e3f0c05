// Running sums along time for channel-major data: Y[c, t] = X[c, 0] + ... + X[c, t]. Each CTA
// owns CC channels and walks time in chunks of TT steps. It transposes each [CC, TT] chunk so
// that time runs down the rows, takes `cumsum` (an inclusive prefix sum down the rows), adds the
// carry (the running sums at the end of the previous chunk, one row broadcast down the chunk),
// writes the chunk back transposed, and keeps the chunk's last row as the next carry.
@autotune(TT in [64, 32], CC in [32, 64])
@launch(256)
kernel chunk_cumsum(X: tensor<f32>[C, T], Y: tensor<f32>[C, T]) {
  let c0 = ctx.block.x * CC
  var carry: tile<f32>[1, CC] = 0.0
  var chunk: tile<f32>[TT, CC]
  for t0 in range(0, T, TT) {
    chunk = cumsum(transpose(X[c0 :+ CC, t0 :+ TT])) + carry
    Y[c0 :+ CC, t0 :+ TT] = transpose(chunk)
    carry = chunk[TT - 1 :+ 1, :]
  }
}
