// PH505: every thread stores a flag, then all read thread 0's without a barrier, and the value
// decides a barrier: the warning says that the CTA may hang on a GPU
@launch(64)
kernel k(A: tensor<i32>[64], O: tensor<i32>[64]) {
  var flags: tile<i32>[64] = 0
  flags[ctx.thread] = A[ctx.thread]
  if flags[0] > 0 {                         //~ warning PH505 note "may hang"
    barrier()
  }
  O[ctx.thread] = 1
}
