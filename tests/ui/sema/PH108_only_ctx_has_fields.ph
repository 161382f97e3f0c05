// PH108 (invalid-ctx-path)
kernel k() {
  let a = 1
  let b = a.x    //~ error PH108 "only `ctx` has fields"
}
