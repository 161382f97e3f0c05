// PH119 (bad-loop)
kernel k() {
  for i in range(0) {    //~ error PH119 "takes 2 or 3 arguments"
  }
}
