// PH006 (brace-on-next-line)
kernel k() {
  while true
  {    //~ error PH006 "put `{` on the line of the condition"
  }
}
