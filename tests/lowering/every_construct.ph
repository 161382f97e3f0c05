// Every lane-level construct the lowering handles, in one kernel: views, an inlined function
// with a dimension bound from its argument, i64 loops, bool/f16/u8 runs, shuffles of every mode
// and width, lane and CTA collectives of every op, atomics, acquire/release (tests/test_lowering*).
fn row_total(X: tensor<f32>[R, C], r: i32) -> f32 {
  var acc: f32 = 0.0
  for c in range(ctx.lane, C, ctx.lanes) {
    acc += X[r, c]
  }
  return sum<over ctx.lane>(acc)
}

@launch(256)
@aligned(C = 8)
kernel stress(X: tensor<f32>[R, C], I: tensor<i64>[R, C], H: tensor<f16>[R, C], B: tensor<bool>[R, C],
              U: tensor<u8>[R, C], O: tensor<f64>[R], Q: tensor<i32>[4], F: tensor<f32>[2], flag: bool, k: i64) {
  let r = ctx.block.x
  let v = X[r :+ 1, 0 :+ 8]
  let first = v[0, ctx.lane % 8]
  let total = row_total(X, r)
  var x64: f64 = f64(first)
  var i64v: i64 = I[r, ctx.lane]
  for j in range(i64(0), k, i64(2)) {
    i64v += j
  }
  let bs = elem(B[r, 0 :+ 8])
  let hs = elem(f32(H[r, 0 :+ 8]))
  let pick = where(bs, hs, -hs)
  store(H[r, 0 :+ 8], f16(pick))
  store(U[r, 0 :+ 8], u8(min(max(round(elem(f32(U[r, 0 :+ 8])) * 1.5), 0.0), 255.0)))
  let a = shfl<xor 1>(x64) + f64(shfl<down ctx.warp>(i64v)) + f64(shfl<up 2>(first))
  let s1 = shfl<idx (ctx.lane * 3)>(flag)
  let s2 = shfl<xor 4>(bs[0])
  let b = s1 && s2
  let m1 = max<over ctx.lane>(i64v)
  let m2 = min<over ctx.thread>(x64)
  let m3 = all<over ctx.thread>(b)
  let m4 = sum<over ctx.thread>(i64v)
  let m5 = any<over ctx.lane>(flag)
  if m3 || m5 {
    O[r] = a + m2 + f64(m1) + f64(m4) + f64(total)
  }
  let old = atomic_add(F[0], 1.5)
  atomic_max(Q[0], i32(old))
  let seen = load_acquire(F[1])
  store_release(Q[1], i32(seen))
  let c = atomic_cas(Q[2], 0, 7)
  Q[3] = c
}
