// PH109 (bad-call)
kernel k() {
  let a = sum<over ctx.warp>(1)    //~ error PH109 "not `ctx.warp`"
}
