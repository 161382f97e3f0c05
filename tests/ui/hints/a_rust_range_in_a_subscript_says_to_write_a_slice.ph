// `A[0..4]` in a subscript: the slice is written `0:4`
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  O[ctx.thread] = sum(A[0..4])    //~ error PH005 "`0..4` is not a slice" help "`0:4`"
}
