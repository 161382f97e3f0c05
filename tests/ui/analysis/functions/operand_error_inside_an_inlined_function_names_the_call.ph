// operand error inside an inlined function names the call
fn view_at(S: tensor<f32>[1, 64], a: i32) {
  let v = S[0 :+ 1, a :+ 4]        //~ error PH302
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  view_at(A, ctx.lane)    //~ chain "inlined from 7:3"
}
