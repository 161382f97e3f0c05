// LANGUAGE §9.2: "A loop variable has the join of its bounds' kinds (lo, hi, step)": each bound on its
// own raises it; all-uniform bounds leave it uniform.
// pins: kinds.loop-variable L9.2b
@launch(128)
kernel k(O: tensor<i32>[128], n: i32) {
  var acc = 0
  for a in range(0, n) {                   //~ kind a uniform
    acc += a
  }
  for b in range(ctx.lane, n) {            //~ kind b varying
    acc += b
  }
  for c in range(0, ctx.warp + 4) {        //~ kind c warp-uniform
    acc += c
  }
  for d in range(0, 64, ctx.lane + 1) {    //~ kind d varying
    acc += d
  }
  for e in range(ctx.block.x, n, ctx.warps) {   //~ kind e uniform
    acc += e
  }
  O[ctx.thread] = acc
}
