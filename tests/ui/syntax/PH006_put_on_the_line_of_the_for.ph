// PH006 (brace-on-next-line)
kernel k() {
  for i in range(0, 4)
  {    //~ error PH006 "put `{` on the line of the `for`"
  }
}
