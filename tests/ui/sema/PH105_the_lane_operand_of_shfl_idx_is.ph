// PH105 (type-mismatch)
// LANGUAGE §8: a shuffle's lane operand `E` is i32 (an i64 was accepted and truncated)
kernel k(O: tensor<i32>[32], l: i64) {
  O[ctx.thread] = shfl<idx l>(1)    //~ error PH105 "the lane operand of `shfl<idx ..>` is an i32, not i64" help "`i32(l)`"
}
