// PH103 (reserved-name)
kernel k(f32: i32) {    //~ error PH103 "`f32` is a type name"
}
