// The CUDA C equivalent of examples/lanes_matvec.ph: one warp per row of W, each lane a run of
// four columns per step (128-bit loads: K is a multiple of 128), the run's products summed as a
// pairwise tree, a butterfly of five xor shuffles, lane 0 stores. 64-bit addresses, as in Phobos.
extern "C" __global__ void __launch_bounds__(128)
lanes_matvec(const float* __restrict__ W, const float* __restrict__ x, float* __restrict__ y, int N, int K) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int row = blockIdx.x * 4 + warp;
  float acc = 0.0f;
  if (row < N) {
    for (int k = 0; k < K; k += 128) {
      int at = k + lane * 4;
      float4 w = *reinterpret_cast<const float4*>(W + (long long)row * K + at);
      float4 v = *reinterpret_cast<const float4*>(x + at);
      acc += (w.x * v.x + w.y * v.y) + (w.z * v.z + w.w * v.w);
    }
  }
  for (int step = 16; step >= 1; step >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, step);
  if (lane == 0 && row < N) y[row] = acc;
}
