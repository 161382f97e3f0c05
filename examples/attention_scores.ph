// Causal attention probabilities for blocks of 64 tokens with head size 64: for each block
// (one per batch and head, stacked along the rows of Q, Kmat and P),
// P = softmax(scale * Q K^T) along each row, where query i may attend only to keys j <= i.
// One CTA per block. `dot_t` multiplies Q by K transposed without moving K; the causal mask is
// `tril` of a tile of ones, turned into a bias of 0 (keep) or -1e30 (masked) so masked scores
// vanish under exp; `rowmax` and `rowsum` give a numerically stable row-wise softmax. Q and K
// are read through views of global memory; the scores live in shared memory.
@launch(256)
kernel attention_scores(Q: tensor<f16>[R, 64], Kmat: tensor<f16>[R, 64], P: tensor<f16>[R, 64],
                        scale: f32) {
  let r0 = ctx.block.x * 64
  let q = Q[r0 :+ 64, :64]
  let k = Kmat[r0 :+ 64, :64]
  var keep: tile<f16>[64, 64] = 1.0
  keep = tril(keep)
  var s: tile<f32>[64, 64] = dot_t(q, k) * scale
  s = s + (f32(keep) - 1.0) * 1.0e30
  s = exp(s - rowmax(s))
  s = s / rowsum(s)
  P[r0 :+ 64, 0 :+ 64] = f16(s)
}
