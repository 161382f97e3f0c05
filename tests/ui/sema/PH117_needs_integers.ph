// PH117 (bad-operator)
kernel k() {
  let a = 1.0 & 2.0    //~ error PH117 "`&` needs integers"
}
