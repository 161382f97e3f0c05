// LANGUAGE §9.2: varying function result makes the caller binding varying
fn lane_plus(a: i32) -> i32 {
  return a + ctx.lane    //~ chain "`ctx.lane`"
}
@launch(256)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var x = 0    //~ kind x varying
  x = lane_plus(2)
  let y = x * 2    //~ kind y varying
  O[0 :+ 1, y :+ 4] = A[0 :+ 1, 0 :+ 4]     //~ error PH302 "`slice` takes `y`"
}
