// LANGUAGE §9.4: "stored per thread, with a varying value, index or control" means not uniform;
// "warp-uniform counts: different warps write different elements".
// pins: L9.4 everyone.rule-barrier
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  t[0, ctx.warp] = 1.0
  O[0 :+ 1, 0 :+ 32] = t     //~ error PH303
}
