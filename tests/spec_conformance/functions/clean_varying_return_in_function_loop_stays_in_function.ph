// LANGUAGE §9.3: a return in a function raises "the rest of that function and of the loops inside
// it", not the caller's loop around the call: the caller's barrier in that loop is fine.
// pins: L9.3d control.early-exit
fn find(A: tensor<f32>[R, C], x: f32) -> i32 {
  for i in range(0, 4) {
    if A[i, ctx.lane] == x {
      return i
    }
  }
  return -1
}

@launch(128)
kernel k(A: tensor<f32>[4, 32], O: tensor<f32>[4, 32]) {
  for r in range(0, 4) {
    let at = find(A, f32(r))
    barrier()
    O[r :+ 1, 0 :+ 32] = A[r :+ 1, 0 :+ 32]
    O[r, ctx.lane] = f32(at)
  }
}
