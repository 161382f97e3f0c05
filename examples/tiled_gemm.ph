// Matrix product C = A B of f16 matrices with f32 accumulation. Each CTA owns one BM x BN tile
// of C (grid: x over column tiles, y over row tiles). It walks K in steps of BK, copying a
// BM x BK tile of A and a BK x BN tile of B into shared memory and adding their product into a
// shared f32 accumulator, then writes the accumulator out as a slice of C. Tiles that run past
// the edges of the matrices are masked (zeros in, no stores out). The tile sizes are
// compile-time constants picked by autotuning.
@autotune(BM in [64, 32], BN in [64, 32], BK in [32, 16])
@launch(256)
kernel tiled_gemm(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  let row0 = ctx.block.y * BM
  let col0 = ctx.block.x * BN
  var a_tile: tile<f16>[BM, BK]
  var b_tile: tile<f16>[BK, BN]
  var acc: tile<f32>[BM, BN] = 0.0
  for k0 in range(0, K, BK) {
    a_tile = A[row0 :+ BM, k0 :+ BK]
    b_tile = B[k0 :+ BK, col0 :+ BN]
    acc += dot(a_tile, b_tile)
  }
  C[row0 :+ BM, col0 :+ BN] = acc
}
