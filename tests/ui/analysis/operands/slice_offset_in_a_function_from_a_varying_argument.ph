// LANGUAGE §9.7: slice offset in a function from a varying argument
fn view_at(S: tensor<f32>[1, 64], a: i32) {
  let v = S[0 :+ 1, a :+ 4]        //~ error PH302 "`slice` takes `a`, which differs between lanes"
}
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  view_at(A, ctx.block.x)
  view_at(A, ctx.lane)    //~ chain "`ctx.lane`"
}
