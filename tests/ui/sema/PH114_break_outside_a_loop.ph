// PH114 (misplaced-jump)
kernel k() {
  break    //~ error PH114 "`break` outside a loop"
}
