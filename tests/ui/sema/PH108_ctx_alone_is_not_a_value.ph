// PH108 (invalid-ctx-path)
kernel k() {
  let a = ctx    //~ error PH108 "`ctx` alone is not a value"
}
