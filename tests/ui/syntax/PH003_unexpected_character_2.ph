// PH003 (unexpected-character)
kernel k() {
  let a = 1 # 2    //~ error PH003 "unexpected character '#'"  //~ error PH005
}
