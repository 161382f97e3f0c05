// PH117 (bad-operator)
kernel k() {
  let a = 1 << 2.0    //~ error PH117 "`<<` needs integers"
}
