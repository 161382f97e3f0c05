// the wrapping spelling the help suggests is accepted
@launch(32)
kernel k(A: tensor<i32>[32], O: tensor<i32>[32]) {
  O[ctx.lane] = A[ctx.lane] * i32(i64(0x85ebca6b))
}
