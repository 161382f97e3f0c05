// a one argument range says where it starts
kernel k(A: tensor<f32>[N]) {
  for i in range(N) {    //~ error PH119 help "write `range(0, N)`"
    A[i] = 1.0
  }
}
