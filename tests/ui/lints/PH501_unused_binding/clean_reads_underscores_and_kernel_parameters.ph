// PH501 stays quiet: every binding is read somewhere (a subscript's base, a compound assignment's
// value, a loop bound), a name starting with `_` is unused on purpose, kernel parameters never fire
fn add(x: f32, _unused: f32) -> f32 {
  return x + 1.0
}

@launch(64)
kernel k(A: tensor<f32>[1, 64], O: tensor<f32>[1, 64], Unused: tensor<f32>[4], n: i32) {
  let row = O[0 :+ 1, 0 :+ 64]
  let _debug = A[0, 0]
  var acc: f32 = 0.0
  let hi = 4
  for i in range(0, hi) {
    acc += A[0, i]
  }
  for _j in range(0, 2) {
    acc *= 2.0
  }
  barrier()
  row[0, ctx.thread] = add(acc, 0.0)
}
