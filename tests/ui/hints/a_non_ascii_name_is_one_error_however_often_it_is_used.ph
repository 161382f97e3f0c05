// a non ascii name is one error however often it is used
kernel k(A: tensor<f32>[N]) {
  let α = 1.0    //~ error PH003 "`α` is not a name: names are ASCII letters, digits and `_`" help "ASCII letters"
  A[0] = α * α
  let größe = α    //~ error PH003
}
