// The CUDA C equivalent of examples/tiled_gemm.ph (BM = BN = 64, BK = 32, 256 threads): masked
// copies of a 64 x 32 tile of A and a 32 x 64 tile of B into shared memory, then acc += A B with
// the accumulator tile in shared memory, each thread owning a 4 x 4 block of it (rows t/16 + 16r,
// columns t%16 + 16c), and a masked copy of acc out. A barrier after every CTA-wide step, as
// LANGUAGE §10 places them.
#include <cuda_fp16.h>
#define BM 64
#define BN 64
#define BK 32

extern "C" __global__ void __launch_bounds__(256)
tiled_gemm(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M, int K, int N) {
  __shared__ __align__(16) __half a_tile[BM * BK];
  __shared__ __align__(16) __half b_tile[BK * BN];
  __shared__ __align__(16) float acc[BM * BN];
  int t = threadIdx.x;
  int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  for (int e = t; e < BM * BN; e += 256) acc[e] = 0.0f;
  __syncthreads();
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = t; e < BM * BK; e += 256) {
      unsigned r = row0 + e / BK, c = k0 + e % BK;
      a_tile[e] = (r < (unsigned)M && c < (unsigned)K) ? A[(long long)r * K + c] : __float2half(0.0f);
    }
    __syncthreads();
    for (int e = t; e < BK * BN; e += 256) {
      unsigned r = k0 + e / BN, c = col0 + e % BN;
      b_tile[e] = (r < (unsigned)K && c < (unsigned)N) ? B[(long long)r * N + c] : __float2half(0.0f);
    }
    __syncthreads();
    int bm = t / 16, bn = t % 16;
    float s[4][4] = {};
    for (int k = 0; k < BK; ++k) {
      float a[4], b[4];
      for (int r = 0; r < 4; ++r) a[r] = __half2float(a_tile[(bm + 16 * r) * BK + k]);
      for (int c = 0; c < 4; ++c) b[c] = __half2float(b_tile[k * BN + bn + 16 * c]);
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) s[r][c] += a[r] * b[c];
    }
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) acc[(bm + 16 * r) * BN + bn + 16 * c] += s[r][c];
    __syncthreads();
  }
  for (int e = t; e < BM * BN; e += 256) {
    unsigned r = row0 + e / BN, c = col0 + e % BN;
    if (r < (unsigned)M && c < (unsigned)N) C[(long long)r * N + c] = acc[e];
  }
  __syncthreads();
}
