// "A var that starts uniform and is assigned ctx.lane in a later iteration is varying everywhere";
// LANGUAGE §9.1: "Varying everywhere means everywhere, before the assignment too": the var's first
// use, above the assignment in a while loop, is a varying condition.
// pins: kinds.var-later-iteration L9.1 everyone.rule-control
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32], n: i32) {
  var sel = 0                         //~ kind sel varying
  var i = 0                           //~ kind i uniform
  while i < n {
    if sel == 0 {
      O[0 :+ 1, 0 :+ 32] = A[0 :+ 1, 0 :+ 32]    //~ error PH301
    }
    sel = ctx.lane
    i += 1
  }
}
