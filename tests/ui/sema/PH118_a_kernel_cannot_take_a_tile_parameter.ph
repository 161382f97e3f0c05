// PH118 (bad-type)
kernel k(t: tile<f32>[4]) {    //~ error PH118 "a kernel cannot take a tile parameter"
}
