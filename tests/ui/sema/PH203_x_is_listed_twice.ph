// PH203 (bad-autotune)
@autotune(X in [1], X in [2])    //~ error PH203 "`X` is listed twice"
kernel k() {
}
