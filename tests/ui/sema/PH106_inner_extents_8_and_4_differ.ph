// PH106 (shape-mismatch)
kernel k() {
  var a: tile<f32>[4, 8] = 0.0
  var b: tile<f32>[4, 8] = 0.0
  var c = dot(a, b)    //~ error PH106 "inner extents 8 and 4 differ"
}
