// several semantic errors in one file: each is reported, in order
kernel k() {
  let a = b    //~ error PH101
  let sum = 1    //~ error PH103
  let c: i8 = 300    //~ error PH104
  break    //~ error PH114
}
