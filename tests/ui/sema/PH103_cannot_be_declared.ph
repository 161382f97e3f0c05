// PH103 (reserved-name)
kernel k() {
  var ctx = 1    //~ error PH103 "cannot be declared"
}
