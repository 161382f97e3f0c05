// ph302 chain for a warp uniform let says warps
@launch(256)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  let w = ctx.warp * 4    //~ chain "`ctx.warp` differs between warps"
  O[0 :+ 1, w :+ 4] = A[0 :+ 1, 0 :+ 4]   //~ error PH302 "`slice` takes `w`, which differs between warps"
}
