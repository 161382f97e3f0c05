// B = A^T in blocks of 128 x 128. CTA (x, y) copies block (y, x) of A into a shared tile and
// writes it, transposed, as block (x, y) of B (grid: x over A's column blocks, y over its row
// blocks). Blocks that run past the edges are masked. The tile is 64 KB, more than the 48 KB of
// static shared memory, so the build puts it in dynamic shared memory and the runtime opts in
// to that much at launch.
@launch(256)
kernel block_transpose(A: tensor<f32>[M, N], B: tensor<f32>[N, M]) {
  let r0 = ctx.block.y * 128
  let c0 = ctx.block.x * 128
  var t: tile<f32>[128, 128] = A[r0 :+ 128, c0 :+ 128]
  B[c0 :+ 128, r0 :+ 128] = transpose(t)
}
