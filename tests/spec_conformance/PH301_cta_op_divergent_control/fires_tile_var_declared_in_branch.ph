// LANGUAGE §5: a tile var with an initializer is "filled by a CTA-wide copy or sweep", and a `let`
// of a tile expression "materializes a new tile (a CTA-wide sweep at the let)": under per-thread
// control both are rejected.
// pins: everyone.rule-control L8.cta-wide
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var u: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if ctx.lane == 7 {
    var t: tile<f32>[1, 32] = 0.0         //~ error PH301
    let w = u * 2.0                        //~ error PH301
  }
  O[0 :+ 1, 0 :+ 32] = u
}
