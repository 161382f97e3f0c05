// malformed number gives one error
kernel k() {
  let a = 1.    //~ error PH004
}
