// "The three kinds": warp-uniform holds "The same value in every lane of a warp", from ctx.warp; a
// load at a warp-uniform address is warp-uniform too (LANGUAGE §9.8: the kind of its address).
// pins: kinds.warp-uniform L9.8
@launch(256)
kernel k(A: tensor<f32>[8, 32], O: tensor<f32>[1, 8]) {
  let w = ctx.warp                           //~ kind w warp-uniform
  let x = A[w, 0]                            //~ kind x warp-uniform
  let y = w * 32 + ctx.block.x               //~ kind y warp-uniform
  let s = sum<over ctx.lane>(A[w, ctx.lane]) //~ kind s warp-uniform
  O[0, w] = x + s + f32(y)
}
