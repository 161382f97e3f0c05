// ph303 chain starts at the origin of the index
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  let j = ctx.lane    //~ chain "`ctx.lane`"
  t[0, j] = 1.0    //~ chain "stores to `t`"
  O[0 :+ 1, 0 :+ 32] = t     //~ error PH303 "`tile copy` reads `t`" label "`t`" help "`barrier()`"
}
