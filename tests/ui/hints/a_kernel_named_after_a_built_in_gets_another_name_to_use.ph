// a kernel named after a built in gets another name to use
kernel transpose(A: tensor<f32>[N]) {    //~ error PH103 "`transpose` is a built-in and cannot name a kernel" help "`transpose_kernel`"
  A[0] = 1.0
}
