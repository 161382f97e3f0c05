// PH203 (bad-autotune)
@autotune(X)    //~ error PH203 "`NAME in [v1, v2, ..]`"
kernel k() {
}
