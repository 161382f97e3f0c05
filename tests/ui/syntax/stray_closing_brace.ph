// stray closing brace
kernel k() {
  let a = 1
}
}    //~ error PH005
