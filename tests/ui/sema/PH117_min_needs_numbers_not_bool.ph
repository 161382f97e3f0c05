// PH117 (bad-operator)
// the two values of min/max/where are named as written (the message said `+`)
kernel k(p: bool) {
  let z = min(p, p)    //~ error PH117 "`min` needs numbers, not bool"
}
