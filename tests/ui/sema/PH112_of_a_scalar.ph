// PH112 (sum-of-non-run)
kernel k() {
  let x = 1.0
  let a = sum(x)    //~ error PH112 "of a scalar" help "did you mean `sum<over ctx.lane>(x)`?"
}
