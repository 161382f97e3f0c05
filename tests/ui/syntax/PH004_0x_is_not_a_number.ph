// PH004 (malformed-number)
kernel k() {
  let a = 0x    //~ error PH004 "`0x` is not a number"
}
