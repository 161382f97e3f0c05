// PH005 (syntax-error)
kernel k(a i32) {    //~ error PH005 "found `i32`"
}
