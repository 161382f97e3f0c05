// LANGUAGE §9.8: read through a view at a per thread offset has that kind
// x reads A[0, ctx.lane]: its address differs between lanes; y reads A[0, 4 * warp..]
fn first(S: tensor<f32>[1, 4]) -> f32 {
  return S[0, 0]
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  let v = A[0 :+ 1, ctx.lane :+ 4]         //~ error PH302
  let x = v[0, 0]    //~ kind x varying
  let y = first(A[0 :+ 1, ctx.warp :+ 4])  //~ error PH302  //~ kind y warp-uniform
}
