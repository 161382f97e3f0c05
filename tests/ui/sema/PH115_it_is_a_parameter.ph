// PH115 (bad-assignment)
// a tile parameter, like a view, is written through a slice (the help says how)
kernel k(n: i32) {
  n = 2    //~ error PH115 "it is a parameter"
}
