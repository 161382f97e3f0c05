// one past the i32 range is PH104
kernel k() {
  let a = -2147483649    //~ error PH104
  let b = 2147483648    //~ error PH104
}
