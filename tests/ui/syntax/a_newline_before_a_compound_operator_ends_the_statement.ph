// a newline before a compound operator ends the statement
// `a` ends its line, so `+= 1` starts a new (bad) statement
kernel k() {
  var a = 1
  a
  += 1    //~ error PH005
}
