// PH205 (duplicate-attribute)
@autotune(X in [1])
@autotune(Y in [2])    //~ error PH205 "`@autotune` is given twice"
kernel k() {
}
