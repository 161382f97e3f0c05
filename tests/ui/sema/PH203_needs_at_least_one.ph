// PH203 (bad-autotune)
@autotune    //~ error PH203 "needs at least one"
kernel k() {
}
