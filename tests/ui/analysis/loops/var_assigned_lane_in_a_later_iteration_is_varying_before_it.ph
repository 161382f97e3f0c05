// var assigned lane in a later iteration is varying before it
// per-thread-values.md: "A var that starts uniform and is assigned ctx.lane in a later
// iteration is varying everywhere."
@launch(256)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64]) {
  var x = 0    //~ kind x varying
  for i in range(0, 4) {
    if x == 0 {
      barrier()                               //~ error PH301
    }
    O[0 :+ 1, x :+ 4] = A[0 :+ 1, 0 :+ 4]     //~ error PH302 "`slice` takes `x`, which differs between lanes"
    x = ctx.lane    //~ chain "`ctx.lane`"
  }
}
