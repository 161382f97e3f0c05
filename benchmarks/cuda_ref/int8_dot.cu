// The CUDA C equivalent of examples/int8_dot.ph: one thread per output, K walked four bytes at a
// time (32-bit loads: K is a multiple of 16), one dp4a per step, unrolled by 4; requantized in
// 64-bit arithmetic. Shifts keep PTX's meaning for counts beyond the width, as Phobos's do.
extern "C" __global__ void __launch_bounds__(128)
int8_dot(const signed char* __restrict__ A, const signed char* __restrict__ Bt, signed char* __restrict__ C,
         int mult, int shift, int M, int N, int K) {
  int i = blockIdx.y;
  int j = blockIdx.x * 128 + threadIdx.x;
  if (i < M && j < N) {
    int acc = 0;
    const int* a = reinterpret_cast<const int*>(A + (long long)i * K);
    const int* b = reinterpret_cast<const int*>(Bt + (long long)j * K);
#pragma unroll 4
    for (int k = 0; k < K; k += 4) acc = __dp4a(a[k >> 2], b[k >> 2], acc);
    unsigned s1 = (unsigned)(shift - 1);
    long long rounding = s1 < 64 ? (1LL << s1) : 0;
    long long scaled = ((long long)acc * mult + rounding) >> ((unsigned)shift < 63 ? shift : 63);
    long long q = scaled < -128 ? -128 : scaled;
    q = q > 127 ? 127 : q;
    C[(long long)i * N + j] = (signed char)q;
  }
}
