// PH114 (misplaced-jump)
kernel k() {
  return 1    //~ error PH114 "a kernel returns no value"
}
