// LANGUAGE §9.2: atomic and acquire results are uniform
@launch(256)
kernel k(C: tensor<i32>[4], F: tensor<i32>[4]) {
  let a = atomic_add(C[0], 1)    //~ kind a uniform
  let f = load_acquire(F[1])    //~ kind f uniform
}
