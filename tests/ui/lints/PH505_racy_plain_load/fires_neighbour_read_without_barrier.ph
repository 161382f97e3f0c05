// PH505: a thread loads its neighbour's element with no barrier after the neighbour stored it
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  var t: tile<f32>[64] = 0.0
  t[ctx.thread] = A[ctx.thread]
  let right = t[(ctx.thread + 1) % 64]      //~ warning PH505 "another thread stored"
  O[ctx.thread] = right
}
