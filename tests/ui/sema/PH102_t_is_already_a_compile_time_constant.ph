// PH102 (redeclared-name)
// a name taken by a compile-time constant says where the constant comes from
//@ -D T=4
kernel k(O: tensor<i32>[4]) {
  let T = 3    //~ error PH102 "`T` is already a compile-time constant, bound on the command line with `-D T=4`" help "use another name"
}
