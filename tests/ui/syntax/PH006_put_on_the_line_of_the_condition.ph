// PH006 (brace-on-next-line)
kernel k() {
  if true
  {    //~ error PH006 "put `{` on the line of the condition"
  }
}
