// "A var is as varying as anything assigned to it": a running offset updated with uniform values
// under uniform loop bounds stays uniform and may offset slices.
// pins: kinds.var L9.1
@launch(128)
kernel k(A: tensor<f32>[1, 256], O: tensor<f32>[1, 256], n: i32) {
  var off = 0                                       //~ kind off uniform
  for r in range(0, 4) {
    O[0 :+ 1, off :+ 32] = A[0 :+ 1, off :+ 32]
    off += 32 + n % 2
  }
}
