// PH202 (bad-aligned)
// attribute values past i32 (an @aligned one was accepted; an @autotune one surfaced later as
// PH211)
@aligned(N = 99999999999999999999)    //~ error PH202 "the alignment must be a positive i32, not 99999999999999999999"
kernel k(A: tensor<f32>[N]) {
}
