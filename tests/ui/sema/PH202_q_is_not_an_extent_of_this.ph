// PH202 (bad-aligned)
@aligned(Q = 4)    //~ error PH202 "`Q` is not an extent of this kernel's tensors"
kernel k(A: tensor<f32>[N]) {
}
