// "An expression is as varying as its most varying operand": the rule is syntactic. ctx.lane - ctx.lane
// and ctx.lane * 0 are 0 everywhere, yet varying; ctx.thread / 32 is varying though it equals ctx.warp.
// pins: kinds.expression
@launch(128)
kernel k(O: tensor<i32>[128]) {
  let z = ctx.lane - ctx.lane        //~ kind z varying
  let z2 = ctx.lane * 0              //~ kind z2 varying
  let w = ctx.thread / 32            //~ kind w varying
  O[ctx.thread] = z + z2 + w
}
