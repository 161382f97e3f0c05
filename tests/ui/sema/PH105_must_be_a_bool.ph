// PH105 (type-mismatch)
kernel k() {
  if 1 {    //~ error PH105 "must be a bool"
  }
}
