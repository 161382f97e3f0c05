// PH102 (redeclared-name)
// a name taken by a compile-time constant says where the constant comes from
@autotune(T in [2, 4])
kernel k(O: tensor<i32>[4]) {
  var T = 3    //~ error PH102 "`T` is already a compile-time constant, declared by `@autotune` at 3:11"
}
