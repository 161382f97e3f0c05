// A fused linear layer with ReLU, Y = max(X W^T + b, 0), for bf16 activations and weights in
// the usual [out_features, in_features] layout, accumulating in f32. Each CTA computes one
// BM x BN tile of Y (grid: x over column tiles, y over row tiles): `dot_t` multiplies a tile of
// X by a tile of W without transposing W in memory, the bias row broadcasts down the tile, and
// `tmax` against 0 is the ReLU, before the result is rounded to bf16. K is promised to be a
// multiple of 64, so the steps along K need no masks.
@autotune(BM in [64, 128], BN in [64], BK in [32, 64])
@launch(256)
@aligned(K = 64)
kernel linear_relu(X: tensor<bf16>[M, K], W: tensor<bf16>[N, K], b: tensor<f32>[1, N],
                   Y: tensor<bf16>[M, N]) {
  let row0 = ctx.block.y * BM
  let col0 = ctx.block.x * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k0 in range(0, K, BK) {
    let x = X[row0 :+ BM, k0 :+ BK]
    let w = W[col0 :+ BN, k0 : k0 + BK]
    acc += dot_t(x, w)
  }
  acc = tmax(acc + b[0 :+ 1, col0 :+ BN], 0.0)
  Y[row0 :+ BM, col0 :+ BN] = bf16(acc)
}
