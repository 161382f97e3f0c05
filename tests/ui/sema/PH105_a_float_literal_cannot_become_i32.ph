// PH105 (type-mismatch)
kernel k() {
  var x: i32 = 1.5    //~ error PH105 "a float literal cannot become i32"
}
