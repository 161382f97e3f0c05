// PH108 (invalid-ctx-path)
kernel k() {
  let a = ctx.block    //~ error PH108 "`ctx.block` alone is not a value"
}
