// guards on values that cannot overflow are still decided
// a store in the last iteration of a loop to a runtime bound, and a guard on a parameter
// that wraps only outside its type's range: both paths are still dropped
@launch(32)
kernel k(O: tensor<f32>[8, 32], n: i32) {
  var t: tile<f32>[1, 32] = 0.0
  for r in range(0, n) {
    O[0 :+ 1, 0 :+ 32] = t
    if r == n - 1 {
      t[0, ctx.lane] = 2.0
    }
  }
  barrier()
  for r in range(0, 8) {
    O[0 :+ 1, 0 :+ 32] = t
    if r + n == n + 7 {
      t[0, ctx.lane] = 3.0
    }
  }
}
