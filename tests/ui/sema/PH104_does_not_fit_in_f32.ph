// PH104 (literal-out-of-range)
kernel k() {
  let a = 1e999    //~ error PH104 "does not fit in f32"
}
