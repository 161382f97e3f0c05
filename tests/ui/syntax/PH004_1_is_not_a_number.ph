// PH004 (malformed-number)
kernel k() {
  let a = 1.    //~ error PH004 "`1.` is not a number" help "write `1.0`"
}
