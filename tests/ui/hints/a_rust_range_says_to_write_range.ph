// `0..N` (Rust's range) is not a range: the help writes `range(0, N)`, which the fix applies
@launch(64)
kernel k(A: tensor<f32>[N], O: tensor<f32>[64]) {
  var s = 0.0
  for i in 0..N {    //~ error PH005 "`0..N` is not a range" help "`range(0, N)`"
    s += A[i]
  }
  O[ctx.thread] = s
}
