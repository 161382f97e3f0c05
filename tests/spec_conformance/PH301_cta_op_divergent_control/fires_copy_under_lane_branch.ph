// "What needs every thread": a tile copy (into a tile, out of a tile, tensor to tensor) is a tile
// operation; "They run only under uniform control: every thread must reach them."
// pins: everyone.rule-control everyone.ops L8.cta-wide
@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  var t: tile<f32>[1, 32]
  if ctx.lane < 16 {
    t = A[0 :+ 1, 0 :+ 32]              //~ error PH301 "`tile copy`"
    O[1 :+ 1, 0 :+ 32] = t              //~ error PH301 "`tile copy`"
    O[2 :+ 2, 0 :+ 32] = A[0 :+ 2, 0 :+ 32]   //~ error PH301 "`tile copy`"
  }
}
