// PH202 (bad-aligned)
@aligned(K = 0)    //~ error PH202 "must be a positive i32, not 0"
kernel k(A: tensor<f32>[K]) {
}
