// PH115 (bad-assignment)
// a tile parameter, like a view, is written through a slice (the help says how)
fn f(t: tile<f32>[1, 32]) {
  t += 1.0    //~ error PH115 "cannot assign to `t`: it is a parameter" help "assign to a slice of it: `t[..] = ..`"
}
@launch(32)
kernel k() {
  var u: tile<f32>[1, 32] = 0.0
  f(u)
}
