// per-thread-values.md, "Lane-level operations": `op<over ctx.lane>(x)` needs "Every lane of the
// warp"; "not inside if ctx.lane < 16 { .. }". Each op of LANGUAGE §8: sum max min any all.
// pins: lane.lane-collective lane.example L8.lane-collective
@launch(128)
kernel k(A: tensor<f32>[1, 128], O: tensor<f32>[1, 128]) {
  let x = A[0, ctx.thread]
  if ctx.lane < 16 {
    let s = sum<over ctx.lane>(x)        //~ error PH305 "`sum<over ctx.lane>` needs every lane of the warp, but control differs between lanes"
    let m = max<over ctx.lane>(x)        //~ error PH305 "`max<over ctx.lane>`"
    let n = min<over ctx.lane>(x)        //~ error PH305 "`min<over ctx.lane>`"
    let a = any<over ctx.lane>(x > 0.0)  //~ error PH305 "`any<over ctx.lane>`"
    let b = all<over ctx.lane>(x > 0.0)  //~ error PH305 "`all<over ctx.lane>`"
    O[0, ctx.thread] = where(a && b, s, m + n)
  }
}
