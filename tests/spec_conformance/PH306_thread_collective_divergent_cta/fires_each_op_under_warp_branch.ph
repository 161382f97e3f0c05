// per-thread-values.md, "Lane-level operations": `op<over ctx.thread>(x)` needs "Every thread of the
// CTA: uniform control". Each op of LANGUAGE §8 under warp-uniform control.
// pins: lane.cta-collective L8.cta-collective
@launch(256)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 8]) {
  let x = A[0, ctx.thread]
  if ctx.warp == 0 {
    let s = sum<over ctx.thread>(x)        //~ error PH306 "`sum<over ctx.thread>` needs every thread of the CTA, but control differs between threads"
    let m = max<over ctx.thread>(x)        //~ error PH306 "`max<over ctx.thread>`"
    let n = min<over ctx.thread>(x)        //~ error PH306 "`min<over ctx.thread>`"
    let a = any<over ctx.thread>(x > 0.0)  //~ error PH306 "`any<over ctx.thread>`"
    let b = all<over ctx.thread>(x > 0.0)  //~ error PH306 "`all<over ctx.thread>`"
    O[0, ctx.lane % 8] = where(a || b, s, m - n)
  }
}
