// Hamming distances between binary codes packed 32 bits to an i32 word: D[i, j] = the number of
// bit positions where code A[i, :] and code B[j, :] differ, the popcount of their xor summed over
// the W words of a code (as in binary-embedding search). One thread per (i, j); the grid's y
// runs over i and its x over blocks of ctx.threads values of j.
@launch(128)
kernel hamming_distance(A: tensor<i32>[M, W], B: tensor<i32>[N, W], D: tensor<i32>[M, N]) {
  let i = ctx.block.y
  let j = ctx.block.x * ctx.threads + ctx.thread
  if i < M && j < N {
    var dist = 0
    for w in range(0, W) {
      dist += popcount(A[i, w] ^ B[j, w])
    }
    D[i, j] = dist
  }
}
