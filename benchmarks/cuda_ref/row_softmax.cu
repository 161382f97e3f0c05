// The CUDA C equivalent of examples/row_softmax.ph: one warp per row, lanes stride the row;
// warp max and warp sum by xor butterflies; exp as ex2.approx(x * log2 e), as Phobos lowers it.
__device__ __forceinline__ float ex2(float x) { float y; asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float phobos_exp(float x) { return ex2(x * 1.4426950408889634f); }

extern "C" __global__ void __launch_bounds__(256)
row_softmax(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int row = blockIdx.x * 8 + warp;
  if (row < M) {
    const float* x = X + (long long)row * N;
    float local_max = -3.0e38f;
    for (int c = lane; c < N; c += 32) local_max = fmaxf(local_max, x[c]);
    for (int s = 16; s >= 1; s >>= 1) local_max = fmaxf(local_max, __shfl_xor_sync(0xffffffffu, local_max, s));
    float local_sum = 0.0f;
    for (int c = lane; c < N; c += 32) local_sum += phobos_exp(x[c] - local_max);
    for (int s = 16; s >= 1; s >>= 1) local_sum += __shfl_xor_sync(0xffffffffu, local_sum, s);
    float inv_sum = 1.0f / local_sum;
    float* y = Y + (long long)row * N;
    for (int c = lane; c < N; c += 32) y[c] = phobos_exp(x[c] - local_max) * inv_sum;
  }
}
