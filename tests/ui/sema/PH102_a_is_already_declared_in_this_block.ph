// PH102 (redeclared-name)
kernel k() {
  let a = 1
  var a = 2    //~ error PH102 "`a` is already declared in this block" note "first declared at 3:7"
}
