// PH109 (bad-call)
kernel k() {
  var t: tile<f32>[4] = 0.0
  atomic_add(t[0], 1.0)    //~ error PH109 "works on global memory"
}
