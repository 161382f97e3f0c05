// LANGUAGE §5: `let x = <slice>` binds a view, "no copy, no operation"; an unfilled tile var is not
// filled by anything. Neither needs every thread, so both may sit under per-thread control.
// pins: everyone.rule-control L9.5
@launch(128)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  if ctx.lane == 0 {
    let v = A[0 :+ 1, 0 :+ 32]
    var t: tile<f32>[1, 32]
    O[0, 0] = v[0, 0]
  }
}
