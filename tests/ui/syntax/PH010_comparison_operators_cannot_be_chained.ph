// PH010 (chained-comparison)
kernel k() {
  let a = 1 < 2 < 3    //~ error PH010 "comparison operators cannot be chained"
}
