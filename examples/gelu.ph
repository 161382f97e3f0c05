// The GELU activation (tanh approximation) applied elementwise to an f16 matrix, computed in f32:
// Y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))). One thread per run of 8
// consecutive elements of a row (16-byte loads and stores); N is promised to be a multiple of 8.
@launch(256)
@aligned(N = 8)
kernel gelu(X: tensor<f16>[M, N], Y: tensor<f16>[M, N]) {
  let runs_per_row = N / 8
  let g = ctx.block.x * ctx.threads + ctx.thread
  if g < M * runs_per_row {
    let r = g / runs_per_row
    let c = (g % runs_per_row) * 8
    let x = elem(f32(X[r, c :+ 8]))
    let inner = 0.7978846 * (x + 0.044715 * x * x * x)
    store(Y[r, c :+ 8], f16(0.5 * x * (1.0 + tanh(inner))))
  }
}
