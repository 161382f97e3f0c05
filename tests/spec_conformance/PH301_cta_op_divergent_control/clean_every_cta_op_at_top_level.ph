// "What needs every thread": every CTA-wide operation of LANGUAGE §8, under uniform control with
// uniform operands: copy, sweep, each tile built-in, barrier, each atomic, acquire and release.
// pins: everyone.rule-control everyone.rule-operands L8.cta-wide
@launch(256)
kernel k(A: tensor<f32>[64, 64], O: tensor<f32>[64, 64], C: tensor<i32>[16], n: i32) {
  var a: tile<f32>[16, 16] = A[0 :+ 16, 0 :+ 16]
  var b: tile<f32>[16, 16] = A[16 :+ 16, 0 :+ 16]
  var c: tile<f32>[16, 16] = dot(a, b)
  c = c + dot_t(a, b)
  var r: tile<f32>[16, 1] = rowsum(a)
  r = tmax(r, rowmax(b))
  c = cumsum(c)
  c = tril(c)
  c = transpose(c)
  c = exp(c) + log(a) + sqrt(b) + tanh(c) + round(a)
  c = where(c > a, c, a) * f32(n)
  barrier()
  let s = atomic_add(C[0], 1)
  let m = atomic_max(C[1], n)
  let mn = atomic_min(C[2], n)
  let cs = atomic_cas(C[3], 0, s)
  let f = load_acquire(C[4])
  store_release(C[5], f + m + mn + cs)
  O[0 :+ 16, 0 :+ 16] = c
  O[16 :+ 16, 0 :+ 1] = r
}
