// two statements on one line need a separator
kernel k() {
  let a = 1 let b = 2    //~ error PH005
}
