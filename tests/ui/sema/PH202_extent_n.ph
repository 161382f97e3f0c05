// PH202 (bad-aligned)
@aligned(4)    //~ error PH202 "`EXTENT = n`"
kernel k(A: tensor<f32>[K]) {
}
