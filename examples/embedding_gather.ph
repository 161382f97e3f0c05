// Embedding lookup: Out[r, :] = Emb[ids[r], :] for bf16 embedding rows of width D. One CTA per
// output row. The token id is loaded at a uniform address, so it is uniform and may serve as a
// slice offset; both sides of the copy are tensors, so `:` may span the runtime width D. An id
// outside the table reads as a row of zeros (the slice is masked).
@launch(128)
kernel embedding_gather(ids: tensor<i32>[T], Emb: tensor<bf16>[V, D], Out: tensor<bf16>[T, D]) {
  let r = ctx.block.x
  let tok = ids[r]
  Out[r :+ 1, :] = Emb[tok :+ 1, :]
}
