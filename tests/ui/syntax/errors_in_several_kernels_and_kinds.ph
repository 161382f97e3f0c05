// errors in several kernels and kinds
kernel a() {
  let x = )    //~ error PH005
}
kernel b() {
  if true
  {    //~ error PH006
  }
}
kernel c() {
  let y = 1 # 2    //~ error PH003 PH005
}
