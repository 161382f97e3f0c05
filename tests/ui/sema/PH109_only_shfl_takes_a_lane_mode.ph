// PH109 (bad-call)
kernel k() {
  let a = sum<xor 1>(1)    //~ error PH109 "only `shfl` takes a lane mode"
}
