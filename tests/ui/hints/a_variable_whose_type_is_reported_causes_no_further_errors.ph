// a variable whose type is reported causes no further errors
// the declared type is wrong, not the uses: `local[..]` must not add "`local` is an i32 and
// cannot be subscripted", nor `x + 1.0` a mismatch with the initializer's type
@launch(256)
kernel k(data: tensor<u8>[N], bins: tensor<i32>[256]) {
  var local: tile<u32>[256] = 0    //~ error PH118
  let x: unsigned = 3    //~ error PH118
  var y: f23 = 1    //~ error PH118
  y = y + 1.0
  atomic_add(local[i32(data[ctx.thread])], 1)
  bins[ctx.thread] = local[ctx.thread] + x
}
