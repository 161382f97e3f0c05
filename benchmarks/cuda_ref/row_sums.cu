// The CUDA C equivalent of examples/row_sums.ph: one warp per row, lanes stride the row, a
// butterfly of xor shuffles, lane 0 stores.
extern "C" __global__ void __launch_bounds__(256)
row_sums(const float* __restrict__ A, float* __restrict__ out, int M, int N) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int row = blockIdx.x * 8 + warp;
  if (row < M) {
    float acc = 0.0f;
    for (int c = lane; c < N; c += 32) acc += A[(long long)row * N + c];
    for (int s = 16; s >= 1; s >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, s);
    if (lane == 0) out[row] = acc;
  }
}
