// PH005 (syntax-error)
// LANGUAGE §2's lists end without a comma; one error per comma, and parsing goes on
@launch(32,)    //~ error PH005 "a trailing comma before `)`" help "remove the `,`"
kernel k(A: tensor<f32>[4], b: i32,) {    //~ error PH005
  let x = min(1, 2,)    //~ error PH005
}
