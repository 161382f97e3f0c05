// PH117 (bad-operator)
kernel k() {
  let a = 1 && true    //~ error PH117 "`&&` needs bools"
}
