// ph303 read inside an inlined function: the chain of an error inside an inlined function has an
// "inlined from" step naming the call
fn copy_out(S: tensor<f32>[1, 32], D: tensor<f32>[1, 32]) {
  D[0 :+ 1, 0 :+ 32] = S[0 :+ 1, 0 :+ 32]     //~ error PH303
}
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  A[0, ctx.lane] = 1.0
  copy_out(A[0 :+ 1, 0 :+ 32], O[0 :+ 1, 0 :+ 32])    //~ chain "inlined from 9:3"
}
