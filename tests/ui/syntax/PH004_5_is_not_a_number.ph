// PH004 (malformed-number)
kernel k() {
  let a = .5    //~ error PH004 "`.5` is not a number" help "write `0.5`"
}
