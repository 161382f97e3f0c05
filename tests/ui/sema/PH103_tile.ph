// PH103 (reserved-name)
kernel k() {
  for tile in range(0, 4) {    //~ error PH103 "`tile`"
  }
}
