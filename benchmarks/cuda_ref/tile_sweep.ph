// A tile copy and a sweep (benchmarks/sass_vs_nvcc.py): each CTA copies a masked 32 x 64 tile of
// A into shared memory, applies t = tanh(t * scale) + t elementwise, and copies it out.
@launch(256)
kernel tile_sweep(A: tensor<f32>[M, N], O: tensor<f32>[M, N], scale: f32) {
  let r0 = ctx.block.y * 32
  let c0 = ctx.block.x * 64
  var t: tile<f32>[32, 64] = A[r0 :+ 32, c0 :+ 64]
  t = tanh(t * scale) + t
  O[r0 :+ 32, c0 :+ 64] = t
}
