// hex literal out of range
// 0x80000000 does not fit in i32, and fits in i64
kernel k() {
  let a = 0x80000000    //~ error PH104
}
kernel j() {
  let a: i64 = 0x80000000
}
