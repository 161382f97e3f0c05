// elem with an index says how to read one element
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  O[ctx.thread] = elem(A[ctx.thread :+ 4], 2)    //~ error PH109 help "`let r = elem(A[ctx.thread :+ 4])`" help "`r[2]`"
}
