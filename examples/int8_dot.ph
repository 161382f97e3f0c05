// Int8 matrix product with requantization, as in an int8 linear layer whose weights are stored
// one output per row: C[i, j] = clamp((sum_k A[i, k] * Bt[j, k]) * mult / 2^shift, -128, 127),
// rounded half up (shift must be at least 1). One thread per output element; the thread walks K
// four bytes at a time, multiplying its own 4-element i8 runs of A and Bt and summing them into
// an i32 accumulator (one dp4a per step). The rescaling is done in i64 so it cannot overflow.
@launch(128)
@aligned(K = 16)
kernel int8_dot(A: tensor<i8>[M, K], Bt: tensor<i8>[N, K], C: tensor<i8>[M, N],
                mult: i32, shift: i32) {
  let i = ctx.block.y
  let j = ctx.block.x * ctx.threads + ctx.thread
  if i < M && j < N {
    var acc: i32 = 0
    for<unroll 4> k in range(0, K, 4) {
      acc += sum(A[i, k :+ 4] * Bt[j, k :+ 4])
    }
    let rounding = i64(1) << (shift - 1)
    let scaled = (i64(acc) * i64(mult) + rounding) >> shift
    let q = min(max(scaled, -128), 127)
    C[i, j] = i8(q)
  }
}
