// `shfl_down(v, 1)` and CUDA's `__shfl_down_sync(mask, v, 1)` mean `shfl<down 1>(v)`
@launch(64)
kernel k(A: tensor<f32>[64], O: tensor<f32>[64]) {
  let v = A[ctx.thread]
  let w = shfl_down(v, 1)    //~ error PH109 help "`shfl<down 1>(v)`"
  let x = __shfl_xor_sync(0xffffffff, v, 4)    //~ error PH109 help "`shfl<xor 4>(v)`"
  O[ctx.thread] = v
}
