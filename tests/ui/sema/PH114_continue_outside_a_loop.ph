// PH114 (misplaced-jump)
kernel k() {
  let a = 1
  continue    //~ error PH114 "`continue` outside a loop"
}
