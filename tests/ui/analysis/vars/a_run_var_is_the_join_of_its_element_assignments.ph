// LANGUAGE §9.1: a run var is the join of its element assignments
@launch(256)
kernel k(A: tensor<f32>[1, 64]) {
  var r = elem(A[0, 0 :+ 4])    //~ kind r warp-uniform
  r[1] = f32(ctx.warp)
  var q = elem(A[0, 0 :+ 4])    //~ kind q uniform
  q[1] = 2.0
}
