// PH504: through a function's parameter, bound to a uniform index at the call
fn bump(B: tensor<i32>[N], j: i32) {
  B[j] += 1                                 //~ warning PH504
}

@launch(64)
kernel k(H: tensor<i32>[16]) {
  bump(H, 3)
}
