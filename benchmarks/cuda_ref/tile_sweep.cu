// The CUDA C equivalent of tile_sweep.ph: a masked copy of a 32 x 64 tile into shared memory
// (out-of-bounds elements read 0), one elementwise sweep, a masked copy out; thread t takes
// elements t, t + 256, ... in row-major order; a barrier after each CTA-wide step.
__device__ __forceinline__ float tanh_approx(float x) { float y; asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }

extern "C" __global__ void __launch_bounds__(256)
tile_sweep(const float* __restrict__ A, float* __restrict__ O, float scale, int M, int N) {
  __shared__ __align__(16) float t[32 * 64];
  int r0 = blockIdx.y * 32, c0 = blockIdx.x * 64;
  for (int e = threadIdx.x; e < 32 * 64; e += 256) {
    unsigned r = r0 + e / 64, c = c0 + e % 64;
    t[e] = (r < (unsigned)M && c < (unsigned)N) ? A[(long long)r * N + c] : 0.0f;
  }
  __syncthreads();
  for (int e = threadIdx.x; e < 32 * 64; e += 256) t[e] = tanh_approx(t[e] * scale) + t[e];
  __syncthreads();
  for (int e = threadIdx.x; e < 32 * 64; e += 256) {
    unsigned r = r0 + e / 64, c = c0 + e % 64;
    if (r < (unsigned)M && c < (unsigned)N) O[(long long)r * N + c] = t[e];
  }
  __syncthreads();
}
