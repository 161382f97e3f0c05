// PH118 (bad-type)
kernel k(a: f31) {    //~ error PH118 "unknown type `f31`"
}
