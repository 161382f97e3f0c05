// PH117 (bad-operator)
kernel k() {
  let a = !1    //~ error PH117 "`!` needs a bool"
}
