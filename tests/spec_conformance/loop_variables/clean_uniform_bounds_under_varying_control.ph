// LANGUAGE §9.2: the loop variable takes its bounds' kinds only, not the control around the loop:
// inside `if ctx.lane == 0` a range(0, 4) loop variable is uniform (the same in every thread that
// has it). Its use as a point index is per-thread anyway.
// pins: kinds.loop-variable L9.2b
@launch(128)
kernel k(O: tensor<f32>[1, 32]) {
  if ctx.lane == 0 {
    for i in range(0, 4) {                 //~ kind i uniform
      O[0, i] = 1.0
    }
  }
}
