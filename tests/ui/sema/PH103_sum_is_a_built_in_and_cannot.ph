// PH103 (reserved-name)
kernel k() {
  let sum = 1    //~ error PH103 "`sum` is a built-in and cannot be declared"
}
