// PH005 (syntax-error)
// LANGUAGE §2's lists end without a comma; one error per comma, and parsing goes on
@autotune(X in [1, 2,])    //~ error PH005 "a trailing comma before `]`"
kernel k() {
}
