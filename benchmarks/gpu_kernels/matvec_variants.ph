// Variants of examples/lanes_matvec.ph (y = W x in f32) for the GPU bench of issue 9: the same
// computation with its tuning knobs made compile-time constants, so that one GPU call can time
// several builds side by side. benchmarks/gpu_bench.py builds each variant with -D bindings and
// times it next to the example, a device-to-device copy and cuBLAS gemv.

// matvec_warp: one warp per RPW consecutive rows (RPW = 1, VEC = 4 is the example). Each lane
// reads runs of VEC consecutive columns (VEC = 4: one 128-bit load; 2: one 64-bit load; 8: two
// 128-bit loads); the loop over K is unrolled UNROLL times so that several loads of W can be in
// flight per warp, and x, loaded once per step, is shared by the warp's RPW rows. MINB is
// `@launch`'s minimum of CTAs per multiprocessor: it sets the registers ptxas may use, and with
// them how many of the unrolled loads ptxas keeps in flight (with no minimum it holds back to
// about 36 registers and two loads of W per warp).
// N must be a multiple of 4 (RPW <= 4) and K of 1024 (the largest step, 32 * 8 * 4): then no row
// and no run needs a mask, and a warp's rows are all in range or all out of range.
@autotune(RPW in [1, 2, 4], VEC in [4, 2, 8], UNROLL in [4, 1, 2, 8], MINB in [8, 16, 4, 2, 1])
@launch(128, MINB)
@aligned(N = 4, K = 1024)
kernel matvec_warp(W: tensor<f32>[N, K], x: tensor<f32>[1, K], y: tensor<f32>[1, N]) {
  let row0 = (ctx.block.x * ctx.warps + ctx.warp) * RPW
  var acc0: f32 = 0.0
  var acc1: f32 = 0.0
  var acc2: f32 = 0.0
  var acc3: f32 = 0.0
  if row0 < N {
    for<unroll UNROLL> k in range(0, K, ctx.lanes * VEC) {
      let at = k + ctx.lane * VEC
      let xv = elem(x[0, at :+ VEC])
      acc0 += sum(W[row0, at :+ VEC] * xv)
      if RPW > 1 {
        acc1 += sum(W[row0 + 1, at :+ VEC] * xv)
      }
      if RPW > 2 {
        acc2 += sum(W[row0 + 2, at :+ VEC] * xv)
        acc3 += sum(W[row0 + 3, at :+ VEC] * xv)
      }
    }
  }
  let total0 = sum<over ctx.lane>(acc0)
  let total1 = sum<over ctx.lane>(acc1)
  let total2 = sum<over ctx.lane>(acc2)
  let total3 = sum<over ctx.lane>(acc3)
  if ctx.lane == 0 && row0 < N {
    y[0, row0] = total0
    if RPW > 1 {
      y[0, row0 + 1] = total1
    }
    if RPW > 2 {
      y[0, row0 + 2] = total2
      y[0, row0 + 3] = total3
    }
  }
}

// matvec_cta: one CTA of BLOCK threads per row (grid = N), for short, wide matrices, where one
// warp per row leaves too few warps to cover the memory latency (4096 x 65536: 4096 warps, 31
// per multiprocessor). Threads read runs of 4 columns (128-bit loads), the loop is unrolled
// CUNROLL times, CMINB is `@launch`'s minimum of CTAs per multiprocessor, and a CTA collective
// adds the threads' partial sums. K must be a multiple of 2048 (the largest step, 512 * 4).
@autotune(BLOCK in [256, 128, 512], CUNROLL in [4, 1, 2, 8], CMINB in [4, 8, 2, 1])
@launch(BLOCK, CMINB)
@aligned(K = 2048)
kernel matvec_cta(W: tensor<f32>[N, K], x: tensor<f32>[1, K], y: tensor<f32>[1, N]) {
  let row = ctx.block.x
  var acc: f32 = 0.0
  if row < N {
    for<unroll CUNROLL> k in range(0, K, ctx.threads * 4) {
      let at = k + ctx.thread * 4
      acc += sum(W[row, at :+ 4] * x[0, at :+ 4])
    }
  }
  let total = sum<over ctx.thread>(acc)
  if ctx.thread == 0 && row < N {
    y[0, row] = total
  }
}
