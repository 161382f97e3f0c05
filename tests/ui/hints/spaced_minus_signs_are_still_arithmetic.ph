// spaced minus signs are still arithmetic
@launch(32)
kernel k(O: tensor<i32>[32]) {
  let i = 3
  O[ctx.lane] = i - -1 + i--1
}
