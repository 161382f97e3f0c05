// ph301 names the operation the statement compiles to
@launch(128)
kernel k(A: tensor<i8>[8, 64], W: tensor<i8>[8, 64], SA: tensor<f32>[8, 2], SW: tensor<f32>[8, 2],
         O: tensor<f32>[8, 8], B: tensor<f32>[8, 8]) {
  var a: tile<i8>[8, 64] = A[0 :+ 8, 0 :+ 64]
  var w: tile<i8>[8, 64] = W[0 :+ 8, 0 :+ 64]
  var sa: tile<f32>[8, 2] = SA[0 :+ 8, 0 :+ 2]
  var sw: tile<f32>[8, 2] = SW[0 :+ 8, 0 :+ 2]
  if ctx.lane == 0 {
    let q = qdot_t(a, sa, w, sw)                 //~ error PH301 "`qdot_t` runs once per CTA"
    var b: tile<f32>[8, 8] = B[0 :+ 8, 0 :+ 8]   //~ error PH301 "`tile copy` runs once per CTA"
    let m = sa * 2.0                             //~ error PH301 "`elementwise sweep` runs once per CTA"
    let d = dot_t(sa, sw)                        //~ error PH301 "`dot_t` runs once per CTA"
    let x = tmax(sa, sw)                         //~ error PH301 "`elementwise sweep` runs once per CTA"
    let r = rowsum(sa)                           //~ error PH301 "`rowsum` runs once per CTA"
  }
  sw[ctx.lane % 8, 0] = 1.0
  let q2 = qdot_t(a, sa, w, sw)                  //~ error PH303 "`qdot_t` reads `sw`"
}
