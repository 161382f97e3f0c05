// PH108 (invalid-ctx-path)
kernel k() {
  let a = ctx.foo    //~ error PH108 "`ctx.foo` is not a `ctx` field"
}
