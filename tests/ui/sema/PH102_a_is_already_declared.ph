// PH102 (redeclared-name)
kernel k(a: i32, a: f32) {    //~ error PH102 "`a` is already declared"
}
